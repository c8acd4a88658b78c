// Sink into a local directory (dist/): writes only changed files, in phase order, and removes files the build dropped.
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pLimit, { type LimitFunction } from 'p-limit';
import { DataError, StorageError } from '../errors.ts';
import { replaceFile } from '../fsutil/atomic.ts';
import { assertSafeKey } from '../fsutil/safe-key.ts';
import type { OutputDocument } from '../render/output.ts';
import { planLocalWrites, type LocalPlan, type LocalWrite } from './local-plan.ts';
import type { PublishOptions, PublishReport, Sink } from './sink.ts';

/**
 * New directories are built under `<dir>/.publish-staging-<pid>-<uuid>/` and renamed into place whole. Keys
 * starting with this are refused, and leftovers of a publish that crashed are removed by the next one.
 */
export const STAGING_PREFIX = '.publish-staging-';

interface Listing {
  /** Keys of the files already there. */
  files: Set<string>;
  /** Directories already there, relative to the root ('' is the root itself). */
  dirs: Set<string>;
  /** Staging directories left behind by a publish that did not finish. */
  staleStaging: string[];
}

async function listTree(root: string): Promise<Listing | null> {
  const listing: Listing = { files: new Set(), dirs: new Set(['']), staleStaging: [] };
  const walk = async (rel: string): Promise<boolean> => {
    let entries;
    try {
      entries = await readdir(rel ? path.join(root, rel) : root, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
    for (const e of entries) {
      if (!rel && e.name.startsWith(STAGING_PREFIX)) {
        listing.staleStaging.push(e.name);
        continue;
      }
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        listing.dirs.add(r);
        await walk(r);
      } else listing.files.add(r);
    }
    return true;
  };
  return (await walk('')) ? listing : null;
}

/**
 * Files of one phase are written this many at a time: one after another, a 10,000-event build (50,000 files)
 * spent most of its publish waiting on the filesystem, each file being a read, a write and a rename.
 */
export const WRITE_CONCURRENCY = 16;

/** Runs `fn` on every item, `limit` at a time; after a failure starts no more, waits for the started ones, throws the first. */
async function forEachLimited<T>(limit: ReturnType<typeof pLimit>, items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  const errors: unknown[] = [];
  await Promise.all(
    items.map((item) =>
      limit(async () => {
        if (errors.length > 0) return;
        try {
          await fn(item);
        } catch (err) {
          errors.push(err);
        }
      }),
    ),
  );
  if (errors.length > 0) throw errors[0];
}

/** Carries out one planned write; says whether it wrote or found the file already as wanted. */
async function writeOne(dir: string, w: LocalWrite, moves: ReadonlyMap<string, string>, ensureDir: (d: string) => Promise<unknown>): Promise<'written' | 'unchanged'> {
  if (w.kind === 'staged') {
    const stagedFile = path.join(moves.get(w.top)!, w.rest);
    await ensureDir(path.dirname(stagedFile));
    await writeFile(stagedFile, w.doc.body);
    return 'written';
  }
  const file = path.join(dir, w.doc.key);
  if (w.kind === 'compare') {
    let current: string | null = null;
    try {
      current = await readFile(file, 'utf8');
    } catch {
      current = null; // gone or unreadable: written again below, which reports a real problem
    }
    if (current === w.doc.body) return 'unchanged';
  }
  await replaceFile(file, w.doc.body);
  return 'written';
}

/**
 * Writes the plan's phases in order; a phase's staged directories are renamed in before the next phase starts. The
 * staging area is removed whatever happens.
 */
async function writePhases(dir: string, plan: LocalPlan, limit: LimitFunction, report: PublishReport, fail: (what: string, err: unknown) => StorageError, opts: PublishOptions): Promise<void> {
  const staging = path.join(dir, `${STAGING_PREFIX}${process.pid}-${randomUUID()}`);
  let staged = 0;
  const made = new Map<string, Promise<unknown>>();
  const ensureDir = (d: string) => {
    let p = made.get(d);
    if (p === undefined) made.set(d, (p = mkdir(d, { recursive: true })));
    return p;
  };
  try {
    for (const { phase, writes, tops } of plan.phases) {
      await opts.beforePhase?.(`phase ${phase}`);
      /** Topmost missing directory (relative) -> its staged copy, for this phase. */
      const moves = new Map(tops.map((top) => [top, path.join(staging, String(staged++))]));
      await forEachLimited(limit, writes, async (w) => {
        try {
          report[await writeOne(dir, w, moves, ensureDir)]++;
        } catch (err) {
          throw fail(`could not write ${w.doc.key}`, err);
        }
      });
      // The phase's new directories appear whole, each with one rename, before the next phase starts.
      for (const [top, copy] of moves) {
        try {
          await rename(copy, path.join(dir, top));
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          const hint = code === 'ENOTEMPTY' || code === 'EEXIST' ? ', which something else created during the publish' : '';
          throw fail(`could not move the new directory ${top} into place${hint}`, err);
        }
      }
    }
  } finally {
    if (staged > 0) await rm(staging, { recursive: true, force: true });
  }
}

const reason = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * How each document reaches the disk, none of them ever visible half-written:
 *  - a file that exists is read and compared; only a changed one is replaced (temp file + rename), so an unchanged
 *    file keeps its mtime;
 *  - a new file in a directory that exists is written the same way, temp file + rename;
 *  - a new file in a directory that does not exist yet is written straight into a staging copy of the topmost
 *    missing directory, which is renamed into place once the whole phase is written. This is the cold-build
 *    case (all 50,000 files of a 10,000-event build): one rename per new directory instead of one per file.
 * A phase's staged directories are renamed in before the next phase starts, so phases stay ordered.
 */
export function createLocalSink(dir: string): Sink {
  const name = `local:${dir}`;
  const fail = (what: string, err: unknown): StorageError => new StorageError('publish/local', `${name}: ${what}: ${reason(err)}`, { cause: err });
  return {
    name,
    async publish(docs: readonly OutputDocument[], opts: PublishOptions = {}): Promise<PublishReport> {
      const report: PublishReport = { target: name, written: 0, unchanged: 0, deleted: 0, pendingDelete: 0, requests: 0 };
      // Every key is checked before anything is written, so a bad build cannot leave half of itself behind.
      for (const d of docs) {
        assertSafeKey(d.key);
        if (d.key.startsWith(STAGING_PREFIX)) throw new DataError('publish/local', `refusing object key ${JSON.stringify(d.key)}: ${STAGING_PREFIX}* is the local sink's staging area`);
      }
      const limit = pLimit(WRITE_CONCURRENCY);
      // One listing up front: new files need no read to compare, and directories that exist need no mkdir.
      let listing = await listTree(dir);
      if (listing === null) {
        // An empty directory shows a reader nothing; everything below it is staged.
        try {
          await mkdir(dir, { recursive: true });
        } catch (err) {
          throw fail('could not create the output directory', err);
        }
        listing = { files: new Set(), dirs: new Set(['']), staleStaging: [] };
      }
      const plan = planLocalWrites(docs, listing);
      await writePhases(dir, plan, limit, report, fail, opts);
      await opts.beforePhase?.('deletes');
      await forEachLimited(
        limit,
        plan.remove,
        async (f) => {
          try {
            await rm(path.join(dir, f), { force: true });
          } catch (err) {
            throw fail(`could not delete ${f}`, err);
          }
          report.deleted++;
        },
      );
      for (const s of listing.staleStaging) {
        try {
          await rm(path.join(dir, s), { recursive: true, force: true });
        } catch (err) {
          throw fail(`could not remove ${s}, left by a publish that did not finish`, err);
        }
      }
      return report;
    },
  };
}
