// StateStore on the local disk: state.json, state.last-good.json and run.lock in one directory, each written
// atomically; a corrupt state file is renamed aside (never deleted).
import { createHash } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { replaceFile, writeFileAtomic } from '../fsutil/atomic.ts';
import { unlessMissing } from '../fsutil/missing.ts';
import { createStateStore, type StateStore } from './store.ts';

/** A mutex file older than this was left by a crashed writer and may be broken. */
const MUTEX_STALE_MS = 10_000;
const MUTEX_RETRY_MS = 5;

/**
 * Compare-and-write needs the check and the rename to be one step for every writer, in this process or another:
 * an exclusive-create mutex file makes it so.
 */
async function withMutex<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  await mkdir(dir, { recursive: true });
  const mutex = path.join(dir, '.write.mutex');
  for (;;) {
    try {
      await (await open(mutex, 'wx')).close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const st = await stat(mutex).catch(() => null);
      if (st !== null && Date.now() - st.mtimeMs > MUTEX_STALE_MS) await rm(mutex, { force: true });
      else await new Promise((r) => setTimeout(r, MUTEX_RETRY_MS));
    }
  }
  return await fn().finally(() => rm(mutex, { force: true }));
}

/** `opts.now`: the clock, read only to name a corrupt file set aside. */
export function createLocalStateStore(dir: string, opts: { now: () => Date }): StateStore {
  /** A file's version is the hash of its contents. */
  const sha256 = (body: string | Uint8Array) => createHash('sha256').update(body).digest('hex');
  const read = (file: string) =>
    unlessMissing(readFile(file), null).then((body) => body && { body, version: sha256(body) });
  return createStateStore(
    `local:${dir}`,
    'state/local',
    {
      name: (file) => file,
      read,
      writeIf: (file, body, expected) =>
        withMutex(dir, async () => {
          if (((await read(file))?.version ?? null) !== expected) return null;
          await writeFileAtomic(file, body);
          return sha256(body);
        }),
      write: replaceFile,
      // Beside it, named by the time it was found; the next save creates the file anew.
      setAside: async (file) => {
        const aside = `${file}.corrupt-${opts.now().toISOString().replace(/[:.]/g, '-')}`;
        await rename(file, aside);
        return { name: aside, version: null };
      },
    },
    {
      state: path.join(dir, 'state.json'),
      lastGood: path.join(dir, 'state.last-good.json'),
      lock: path.join(dir, 'run.lock'),
    },
  );
}
