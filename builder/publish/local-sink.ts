// Sink into a local directory (dist/): writes only changed files, in phase order, and removes files the build dropped.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pLimit, { type LimitFunction } from 'p-limit';
import { DataError, StorageError } from '../errors.ts';
import { replaceFile } from '../fsutil/atomic.ts';
import { assertSafeKey } from '../fsutil/safe-key.ts';
import { createLocalPlanner, leftoverFiles, type LocalWrite } from './local-plan.ts';
import type { DocumentStream, PublishOptions, PublishReport, Sink } from './sink.ts';
import { consumeInPhases, STREAM_WINDOW_DOCS } from './stream.ts';

const WHERE = 'publish/local';

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

/** The tree under `root` (null when it does not exist), read synchronously: a few dozen directories per build. */
function listTree(root: string): Listing | null {
  const listing: Listing = { files: new Set(), dirs: new Set(['']), staleStaging: [] };
  const walk = (rel: string): boolean => {
    let entries;
    try {
      entries = readdirSync(rel ? path.join(root, rel) : root, { withFileTypes: true });
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
        walk(r);
      } else listing.files.add(r);
    }
    return true;
  };
  return walk('') ? listing : null;
}

/**
 * Files are written this many at a time: one after another, a 10,000-event build (50,000 files) spent most of its
 * publish waiting on the filesystem, each file being a read, a write and a rename.
 */
export const WRITE_CONCURRENCY = 16;

/** Carries out one planned write; says whether it wrote or found the file already as wanted. */
async function writeOne(
  dir: string,
  w: LocalWrite,
  stagedTop: (top: string) => string,
  ensureDir: (d: string) => Promise<unknown>,
): Promise<'written' | 'unchanged'> {
  if (w.kind === 'staged') {
    const stagedFile = path.join(stagedTop(w.top), w.rest);
    await ensureDir(path.dirname(stagedFile));
    await writeFile(stagedFile, w.doc.body);
    return 'written';
  }
  const file = path.join(dir, w.doc.key);
  if (w.kind === 'compare') {
    let current: string | null;
    try {
      // Read synchronously: most documents of a tick are unchanged, and a small file read in one call costs far less
      // than fs/promises' readFile, four thread-pool round trips (open, stat, read, close) and their promises; the
      // difference is about 10% of a tick's CPU. Writes stay asynchronous, WRITE_CONCURRENCY at a time.
      current = readFileSync(file, 'utf8');
    } catch {
      current = null; // gone or unreadable: written again below, which reports a real problem
    }
    if (current === w.doc.body) return 'unchanged';
  }
  await replaceFile(file, w.doc.body);
  return 'written';
}

const reason = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Runs `fn` on every item, `limit` at a time; after a failure starts no more, waits for the started ones, throws the first. */
async function forEachLimited<T>(
  limit: LimitFunction,
  items: readonly T[],
  fn: (item: T) => Promise<void>,
): Promise<void> {
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

type Fail = (what: string, err: unknown) => StorageError;

/** The tree under `dir`, or an empty listing for a directory created now (everything below it is then staged). */
async function listOrCreate(dir: string, fail: Fail): Promise<Listing> {
  const listing = listTree(dir);
  if (listing !== null) return listing;
  try {
    await mkdir(dir, { recursive: true });
  } catch (err) {
    throw fail('could not create the output directory', err);
  }
  return { files: new Set(), dirs: new Set(['']), staleStaging: [] };
}

/** Deletes the files the build dropped and the staging directories of publishes that did not finish; returns the files deleted. */
async function removeLeftovers(dir: string, listing: Listing, built: ReadonlySet<string>, fail: Fail): Promise<number> {
  let deleted = 0;
  await forEachLimited(pLimit(WRITE_CONCURRENCY), leftoverFiles(listing.files, built), async (f) => {
    try {
      await rm(path.join(dir, f), { force: true });
    } catch (err) {
      throw fail(`could not delete ${f}`, err);
    }
    deleted++;
  });
  for (const s of listing.staleStaging) {
    try {
      await rm(path.join(dir, s), { recursive: true, force: true });
    } catch (err) {
      throw fail(`could not remove ${s}, left by a publish that did not finish`, err);
    }
  }
  return deleted;
}

export interface LocalSinkOptions {
  /** Documents held at once (STREAM_WINDOW_DOCS); smaller only to test the bound. */
  windowDocs?: number;
}

/**
 * How each document reaches the disk, none of them ever visible half-written:
 *  - a file that exists is read and compared; only a changed one is replaced (temp file + rename), so an unchanged
 *    file keeps its mtime;
 *  - a new file in a directory that exists is written the same way, temp file + rename;
 *  - a new file in a directory that does not exist yet is written straight into a staging copy of the topmost
 *    missing directory, which is renamed into place once the whole phase is written. This is the cold-build
 *    case (all 50,000 files of a 10,000-event build): one rename per new directory instead of one per file.
 * A phase's staged directories are renamed in before the next phase starts, so phases stay ordered.
 *
 * The build is taken as a stream (stream.ts): the sink holds at most `windowDocs` bodies at once, and of every
 * document only its key (for the deletes at the end). So a key is checked when its document arrives, not before
 * the build starts: an unsafe, staging-area or repeated key (or a document of a lower phase after a higher one)
 * stops the publish there, the earlier phases in place, of its own phase at most whole files in directories that
 * existed (its new directories never appear), that document and everything after it unwritten, nothing deleted. The
 * next publish completes the build.
 */
export function createLocalSink(dir: string, sinkOpts: LocalSinkOptions = {}): Sink {
  const name = `local:${dir}`;
  const fail: Fail = (what, err) =>
    new StorageError('publish/local', `${name}: ${what}: ${reason(err)}`, { cause: err });
  const windowDocs = sinkOpts.windowDocs ?? STREAM_WINDOW_DOCS;
  return {
    name,
    async publish(docs: DocumentStream, opts: PublishOptions = {}): Promise<PublishReport> {
      const report: PublishReport = {
        target: name,
        written: 0,
        unchanged: 0,
        deleted: 0,
        pendingDelete: 0,
        requests: 0,
      };
      // One listing up front: new files need no read to compare, and directories that exist need no mkdir.
      const listing = await listOrCreate(dir, fail);
      const planner = createLocalPlanner(listing);
      const built = new Set<string>();
      const staging = path.join(dir, `${STAGING_PREFIX}${process.pid}-${randomUUID()}`);
      let staged = 0;
      /** Topmost missing directory (relative) -> its staged copy, for the current phase. */
      let moves = new Map<string, string>();
      const stagedTop = (top: string) => {
        let copy = moves.get(top);
        if (copy === undefined) moves.set(top, (copy = path.join(staging, String(staged++))));
        return copy;
      };
      const made = new Map<string, Promise<unknown>>();
      const ensureDir = (d: string) => {
        let p = made.get(d);
        if (p === undefined) made.set(d, (p = mkdir(d, { recursive: true })));
        return p;
      };
      try {
        await consumeInPhases(
          docs,
          WHERE,
          { windowDocs, concurrency: WRITE_CONCURRENCY },
          {
            startPhase: async (phase) => {
              await opts.beforePhase?.(`phase ${phase}`);
              moves = new Map();
            },
            accept: (d) => {
              assertSafeKey(d.key, WHERE);
              if (d.key.startsWith(STAGING_PREFIX))
                throw new DataError(
                  WHERE,
                  `refusing object key ${JSON.stringify(d.key)}: ${STAGING_PREFIX}* is the local sink's staging area`,
                );
              if (built.has(d.key)) throw new DataError(WHERE, `the build has two documents for ${d.key}`);
              built.add(d.key);
            },
            write: async (d) => {
              try {
                report[await writeOne(dir, planner.place(d), stagedTop, ensureDir)]++;
              } catch (err) {
                throw fail(`could not write ${d.key}`, err);
              }
            },
            endPhase: async () => {
              // The phase's new directories appear whole, each with one rename, before the next phase starts.
              for (const top of planner.endPhase()) {
                try {
                  await rename(stagedTop(top), path.join(dir, top));
                } catch (err) {
                  const code = (err as NodeJS.ErrnoException).code;
                  const hint =
                    code === 'ENOTEMPTY' || code === 'EEXIST'
                      ? ', which something else created during the publish'
                      : '';
                  throw fail(`could not move the new directory ${top} into place${hint}`, err);
                }
              }
            },
          },
        );
      } finally {
        if (staged > 0) await rm(staging, { recursive: true, force: true });
      }
      await opts.beforePhase?.('deletes');
      report.deleted = await removeLeftovers(dir, listing, built, fail);
      return report;
    },
  };
}
