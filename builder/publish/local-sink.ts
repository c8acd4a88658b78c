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
import { DataError, StorageError, messageOf } from '../errors.ts';
import { replaceFile } from '../fsutil/atomic.ts';
import { orElse } from '../fsutil/missing.ts';
import type { PublishReport, Sink } from './sink.ts';
import { consumeInPhases } from './stream.ts';

const WHERE = 'publish/local';

/**
 * New directories are built under `<dir>/.publish-staging-<pid>-<uuid>/` and renamed into place whole. Keys
 * starting with this are refused, and leftovers of a publish that crashed are removed by the next one.
 */
export const STAGING_PREFIX = '.publish-staging-';

/** Files written at once: each is a read, a write and a rename, which the filesystem can overlap. */
const WRITE_CONCURRENCY = 16;

/**
 * Pure: the plan of a publish, from the listing of what is there. `place` says how a file is written: compared with
 * the one there, created in a directory that exists, or staged under `top`, the topmost directory it is new in;
 * `endPhase` returns the phase's topmost new directories, each renamed into place whole, which exist from then on.
 */
export function createLocalPlanner(listing: { files: ReadonlySet<string>; dirs: ReadonlySet<string> }) {
  const dirs = new Set(listing.dirs);
  let tops = new Set<string>();
  let created: string[] = [];
  return {
    place(key: string): 'compare' | 'create' | { top: string } {
      if (listing.files.has(key)) return 'compare';
      const parent = key.includes('/') ? key.slice(0, key.lastIndexOf('/')) : '';
      if (dirs.has(parent)) return 'create';
      const parts = parent.split('/');
      let top = parts[0]!;
      for (let i = 1; dirs.has(top); i++) top = `${top}/${parts[i]!}`;
      tops.add(top);
      for (let p = parent; p.length >= top.length; p = p.slice(0, p.lastIndexOf('/'))) created.push(p);
      return { top };
    },
    endPhase(): string[] {
      for (const p of created) dirs.add(p);
      const ended = [...tops];
      tops = new Set();
      created = [];
      return ended;
    },
    /** Files there that the build (all of its keys) no longer has; the edge store's file is not a document. */
    leftovers: (built: ReadonlySet<string>) => [...listing.files].filter((f) => !built.has(f) && f !== EDGE_STORE_FILE),
  };
}

/** The files and directories under `root` ('' is the root itself), read synchronously (a few dozen directories). */
function listTree(root: string) {
  const listing = { files: new Set<string>(), dirs: new Set(['']), staleStaging: [] as string[] };
  for (const e of readdirSync(root, { recursive: true, withFileTypes: true })) {
    const r = path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join('/');
    if (!r.startsWith(STAGING_PREFIX)) (e.isDirectory() ? listing.dirs : listing.files).add(r);
    else if (!r.includes('/')) listing.staleStaging.push(r);
  }
  return listing;
}

/** Runs one file operation, its failure described. */
async function attempt(target: string, what: string, op: () => Promise<unknown>): Promise<void> {
  await op().catch((err: unknown) => {
    // A directory renamed onto one that is there and not empty: not ours, as the listing did not have it.
    const code = (err as NodeJS.ErrnoException).code;
    const hint = code === 'ENOTEMPTY' || code === 'EEXIST' ? ', which something else created during the publish' : '';
    throw new StorageError(WHERE, `${target}: ${what}${hint}: ${messageOf(err)}`, { cause: err });
  });
}

/** `windowDocs`: documents held at once (STREAM_WINDOW_DOCS); smaller only to test the bound. */
export function createLocalSink(dir: string, sinkOpts: { windowDocs?: number } = {}): Sink {
  const target = `local:${dir}`;
  return {
    name: target,
    async publish(docs, opts = {}) {
      const report: PublishReport = { target, written: 0, unchanged: 0, deleted: 0, pendingDelete: 0, requests: 0 };
      await attempt(target, 'could not create the output directory', () => mkdir(dir, { recursive: true }));
      // One listing up front: new files need no read to compare, and directories that exist need no mkdir.
      const { files, dirs, staleStaging } = listTree(dir);
      const staging = path.join(dir, `${STAGING_PREFIX}${process.pid}-${randomUUID()}`);
      const plan = createLocalPlanner({ files, dirs });

      async function write(key: string, body: string): Promise<'written' | 'unchanged'> {
        const file = path.join(dir, key);
        const how = plan.place(key);
        // A file gone or unreadable is written again (which reports a real problem). Read synchronously: most documents
        // of a tick are unchanged, and a small file read in one call costs far less than fs/promises' readFile (four
        // thread-pool round trips and their promises).
        if (how === 'compare' && orElse(() => readFileSync(file, 'utf8'), null) === body) return 'unchanged';
        if (typeof how === 'string') await replaceFile(file, body);
        else {
          const staged = path.join(staging, key);
          await mkdir(path.dirname(staged), { recursive: true });
          await writeFile(staged, body);
        }
        return 'written';
      }

      const built = await consumeInPhases(
        docs,
        WHERE,
        { windowDocs: sinkOpts.windowDocs, concurrency: WRITE_CONCURRENCY },
        {
          startPhase: (phase) => opts.beforePhase?.(`phase ${phase}`) ?? Promise.resolve(),
          accept: (d) => {
            if (d.key.startsWith(STAGING_PREFIX))
              throw new DataError(
                WHERE,
                `refusing object key ${JSON.stringify(d.key)}: ${STAGING_PREFIX}* is the local sink's staging area`,
              );
          },
          write: (d) => attempt(target, `could not write ${d.key}`, async () => report[await write(d.key, d.body)]++),
          // The phase's new directories appear whole, each with one rename, before the next phase starts.
          endPhase: async () => {
            for (const top of plan.endPhase())
              await attempt(target, `could not move the new directory ${top} into place`, () =>
                rename(path.join(staging, top), path.join(dir, top)),
              );
          },
        },
      ).finally(() => rm(staging, { recursive: true, force: true }));
      await opts.beforePhase?.('deletes');
      for (const f of plan.leftovers(built)) {
        await attempt(target, `could not delete ${f}`, () => rm(path.join(dir, f), { force: true }));
        report.deleted++;
      }
      for (const s of staleStaging)
        await attempt(target, `could not remove ${s}, left by a publish that did not finish`, () =>
          rm(path.join(dir, s), { recursive: true, force: true }),
        );
      return report;
    },
  };
}
