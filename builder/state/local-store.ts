// StateStore on the local disk: atomic writes, a corrupt file set aside (never deleted) and replaced by the last
// good copy, a lock file.
import { createHash } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { ConflictError } from '../errors.ts';
import { replaceFile, writeFileAtomic } from '../fsutil/atomic.ts';
import type { State } from '../model/schemas.ts';
import {
  loadState,
  lockBody,
  lockIsLive,
  nextLockRecord,
  parseLockRecord,
  releasedLockRecord,
  serializeState,
  type LoadedState,
  type LockHandle,
  type StateStore,
} from './store.ts';

export interface LocalStateStoreOptions {
  /** The clock, read only to name a corrupt file set aside. */
  now: () => Date;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

async function readIfExists(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** A file's version: the hash of its contents (null: no file). */
async function versionOf(file: string): Promise<string | null> {
  const text = await readIfExists(file);
  return text === null ? null : sha256(text);
}

/** A mutex file older than this was left by a crashed writer and may be broken. */
export const MUTEX_STALE_MS = 10_000;
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
      const fh = await open(mutex, 'wx');
      await fh.close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const age = await stat(mutex).then(
        (st) => Date.now() - st.mtimeMs,
        () => 0,
      );
      if (age > MUTEX_STALE_MS) await rm(mutex, { force: true });
      else await new Promise((r) => setTimeout(r, MUTEX_RETRY_MS));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(mutex, { force: true });
  }
}

export function createLocalStateStore(dir: string, opts: LocalStateStoreOptions): StateStore {
  const file = path.join(dir, 'state.json');
  const lockFile = path.join(dir, 'run.lock');
  const lastGoodFile = path.join(dir, 'state.last-good.json');
  return {
    name: `local:${dir}`,
    async load(): Promise<LoadedState> {
      const text = await readIfExists(file);
      return loadState({
        where: 'state/local',
        name: file,
        text,
        version: text === null ? null : sha256(text),
        // Beside it, named by the time it was found.
        setAside: async () => {
          const aside = `${file}.corrupt-${opts.now().toISOString().replace(/[:.]/g, '-')}`;
          await rename(file, aside);
          return aside;
        },
        versionAfterAside: null,
        lastGood: () => readIfExists(lastGoodFile),
        lastGoodName: lastGoodFile,
      });
    },
    async save(state: State, expectedVersion: string | null): Promise<string> {
      const body = serializeState(state);
      return withMutex(dir, async () => {
        if ((await versionOf(file)) !== expectedVersion)
          throw new ConflictError(
            'state/local',
            `${file}: state changed since it was read (conditional write refused)`,
          );
        await writeFileAtomic(file, body);
        // Only after the state landed: the copy is never ahead of the state.
        await replaceFile(lastGoodFile, body);
        return sha256(body);
      });
    },
    async acquireLock(owner: string, ttlMs: number, now: Date): Promise<LockHandle | null> {
      // Read, judge and write under the mutex: of several racers for a free or expired lock, exactly one wins.
      return withMutex(dir, async () => {
        const text = await readIfExists(lockFile);
        const held = text === null ? null : parseLockRecord(text);
        if (lockIsLive(held, now)) return null;
        const body = lockBody(nextLockRecord(held, owner, ttlMs, now));
        await writeFileAtomic(lockFile, body);
        return { ...parseLockRecord(body)!, version: sha256(body) };
      });
    },
    async confirmLock(handle: LockHandle): Promise<void> {
      // The file's hash is its version: unchanged under the mutex means no other run has written it since.
      await withMutex(dir, async () => {
        if ((await versionOf(lockFile)) !== handle.version) {
          throw new ConflictError(
            'state/local',
            `${lockFile}: the run lock is no longer this run's (run ${handle.run}): another run took it over`,
          );
        }
      });
    },
    async releaseLock(handle: LockHandle): Promise<void> {
      // Overwritten as released, not deleted: the record keeps the run number the next holder counts on.
      await withMutex(dir, async () => {
        if ((await versionOf(lockFile)) === handle.version)
          await writeFileAtomic(lockFile, lockBody(releasedLockRecord(handle)));
      });
    },
  };
}
