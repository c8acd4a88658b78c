// Sink into a local directory (dist/): writes only changed files, in phase order, and removes files the build dropped.
// No file is ever visible half-written (the preview may be reading): an existing file is compared and replaced only
// when it changed (temp file + rename, so an unchanged file keeps its mtime); a new file in a new directory is
// written into a staged copy of the topmost missing directory, renamed into place once its phase is written, so a
// reader never sees a new directory half-filled. At most `windowDocs` bodies are held at once; a refused key stops
// the publish with the earlier phases in place and nothing deleted, and the next publish completes the build.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { EDGE_STORE_FILE } from '../contract.ts';
import { DataError, StorageError } from '../errors.ts';
import { replaceFile } from '../fsutil/atomic.ts';
import { assertSafeKey } from '../fsutil/safe-key.ts';
import type { OutputDocument } from '../render/output.ts';
import { emptyReport, type DocumentStream, type PublishOptions, type PublishReport, type Sink } from './sink.ts';
import { consumeInPhases, STREAM_WINDOW_DOCS } from './stream.ts';

const WHERE = 'publish/local';

/**
 * New directories are built under `<dir>/.publish-staging-<pid>-<uuid>/` and renamed into place whole. Keys
 * starting with this are refused, and leftovers of a publish that crashed are removed by the next one.
 */
export const STAGING_PREFIX = '.publish-staging-';

/** Files written at once: each is a read, a write and a rename, which the filesystem can overlap. */
export const WRITE_CONCURRENCY = 16;

export interface DirectoryListing {
  /** Keys of the files already there. */
  files: ReadonlySet<string>;
  /** Directories already there, relative to the root ('' is the root itself). */
  dirs: ReadonlySet<string>;
}

type LocalWrite =
  /** The file exists: read it, replace it only when its bytes differ. */
  | { kind: 'compare'; doc: OutputDocument }
  /** A new file in a directory that exists: temp file + rename. */
  | { kind: 'create'; doc: OutputDocument }
  /** A new file in a new directory: written into the staged copy of `top`, at `rest` below it. */
  | { kind: 'staged'; doc: OutputDocument; top: string; rest: string };

/**
 * Pure: how each document of a phase is written, from the listing of what is there. `endPhase` returns the topmost
 * missing directories the phase created, each to be renamed into place whole; from the next phase on they exist.
 */
export function createLocalPlanner(listing: DirectoryListing) {
  const dirs = new Set(listing.dirs);
  let tops = new Set<string>();
  let created = new Set<string>();
  return {
    place(doc: OutputDocument): LocalWrite {
      if (listing.files.has(doc.key)) return { kind: 'compare', doc };
      const parent = doc.key.includes('/') ? doc.key.slice(0, doc.key.lastIndexOf('/')) : '';
      if (dirs.has(parent)) return { kind: 'create', doc };
      const parts = parent.split('/');
      let top = parts[0]!;
      for (let i = 1; dirs.has(top); i++) top = `${top}/${parts[i]!}`;
      tops.add(top);
      created.add(parent);
      return { kind: 'staged', doc, top, rest: doc.key.slice(top.length + 1) };
    },
    endPhase(): string[] {
      for (const p of created) {
        for (let i = p.indexOf('/'); i >= 0; i = p.indexOf('/', i + 1)) dirs.add(p.slice(0, i));
        dirs.add(p);
      }
      const ended = [...tops];
      tops = new Set();
      created = new Set();
      return ended;
    },
  };
}

/** Files there that the build (its keys, all of them) no longer has. */
export function leftoverFiles(files: Iterable<string>, built: ReadonlySet<string>): string[] {
  // The edge store's file lives next to the documents (the preview reads it there) but is not one of them.
  return [...files].filter((f) => !built.has(f) && f !== EDGE_STORE_FILE);
}

/** The tree under `root`, read synchronously (a few dozen directories), with the staging leftovers apart. */
function listTree(root: string): DirectoryListing & { staleStaging: string[] } {
  const listing = { files: new Set<string>(), dirs: new Set(['']), staleStaging: [] as string[] };
  const walk = (rel: string) => {
    for (const e of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (!rel && e.name.startsWith(STAGING_PREFIX)) listing.staleStaging.push(e.name);
      else if (e.isDirectory()) {
        listing.dirs.add(r);
        walk(r);
      } else listing.files.add(r);
    }
  };
  walk('');
  return listing;
}

const reason = (err: unknown) => (err instanceof Error ? err.message : String(err));

export interface LocalSinkOptions {
  /** Documents held at once (STREAM_WINDOW_DOCS); smaller only to test the bound. */
  windowDocs?: number;
}

export function createLocalSink(dir: string, sinkOpts: LocalSinkOptions = {}): Sink {
  const name = `local:${dir}`;
  const fail = (what: string, err: unknown) =>
    new StorageError(WHERE, `${name}: ${what}: ${reason(err)}`, { cause: err });
  const windowDocs = sinkOpts.windowDocs ?? STREAM_WINDOW_DOCS;
  return {
    name,
    async publish(docs: DocumentStream, opts: PublishOptions = {}): Promise<PublishReport> {
      const report = emptyReport(name);
      try {
        await mkdir(dir, { recursive: true });
      } catch (err) {
        throw fail('could not create the output directory', err);
      }
      // One listing up front: new files need no read to compare, and directories that exist need no mkdir.
      const listing = listTree(dir);
      const built = new Set<string>();
      const writer = new PhaseWriter(dir, listing, fail);
      try {
        await consumeInPhases(
          docs,
          WHERE,
          { windowDocs, concurrency: WRITE_CONCURRENCY },
          {
            startPhase: (phase) => opts.beforePhase?.(`phase ${phase}`) ?? Promise.resolve(),
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
                report[await writer.write(d)]++;
              } catch (err) {
                throw fail(`could not write ${d.key}`, err);
              }
            },
            endPhase: () => writer.endPhase(),
          },
        );
      } finally {
        await writer.removeStaging();
      }
      await opts.beforePhase?.('deletes');
      for (const f of leftoverFiles(listing.files, built)) {
        try {
          await rm(path.join(dir, f), { force: true });
        } catch (err) {
          throw fail(`could not delete ${f}`, err);
        }
        report.deleted++;
      }
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

/** One publish's writes: files compared and replaced in place, new directories staged and moved in phase by phase. */
class PhaseWriter {
  private readonly planner: ReturnType<typeof createLocalPlanner>;
  private readonly staging: string;
  private staged = 0;
  /** Topmost missing directory (relative) -> its staged copy, for the current phase. */
  private moves = new Map<string, string>();
  private readonly made = new Map<string, Promise<unknown>>();

  constructor(
    private readonly dir: string,
    listing: DirectoryListing,
    private readonly fail: (what: string, err: unknown) => StorageError,
  ) {
    this.planner = createLocalPlanner(listing);
    this.staging = path.join(dir, `${STAGING_PREFIX}${process.pid}-${randomUUID()}`);
  }

  private copyOf(top: string): string {
    let copy = this.moves.get(top);
    if (copy === undefined) this.moves.set(top, (copy = path.join(this.staging, String(this.staged++))));
    return copy;
  }

  /** Carries out one planned write; says whether it wrote or found the file already as wanted. */
  async write(doc: OutputDocument): Promise<'written' | 'unchanged'> {
    const w = this.planner.place(doc);
    if (w.kind === 'staged') {
      const stagedFile = path.join(this.copyOf(w.top), w.rest);
      const parent = path.dirname(stagedFile);
      if (!this.made.has(parent)) this.made.set(parent, mkdir(parent, { recursive: true }));
      await this.made.get(parent);
      await writeFile(stagedFile, w.doc.body);
      return 'written';
    }
    const file = path.join(this.dir, w.doc.key);
    if (w.kind === 'compare') {
      let current: string | null = null;
      try {
        // Read synchronously: most documents of a tick are unchanged, and a small file read in one call costs far
        // less than fs/promises' readFile (four thread-pool round trips and their promises).
        current = readFileSync(file, 'utf8');
      } catch {
        // gone or unreadable: written again below, which reports a real problem
      }
      if (current === w.doc.body) return 'unchanged';
    }
    await replaceFile(file, w.doc.body);
    return 'written';
  }

  /** The phase's new directories appear whole, each with one rename, before the next phase starts. */
  async endPhase(): Promise<void> {
    for (const top of this.planner.endPhase()) {
      try {
        await rename(this.copyOf(top), path.join(this.dir, top));
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        const hint =
          code === 'ENOTEMPTY' || code === 'EEXIST' ? ', which something else created during the publish' : '';
        throw this.fail(`could not move the new directory ${top} into place${hint}`, err);
      }
    }
    this.moves = new Map();
  }

  async removeStaging(): Promise<void> {
    if (this.staged > 0) await rm(this.staging, { recursive: true, force: true });
  }
}
