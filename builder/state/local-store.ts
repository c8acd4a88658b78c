// StateStore on the local disk: atomic writes, a corrupt file set aside (never deleted) and replaced by the last
// good copy, a lock file.
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { StateSchema, emptyState, type State } from '../model/schemas.ts';
import { StateConflictError, type LoadedState, type LockHandle, type StateStore } from './store.ts';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

async function readIfExists(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Write-then-rename into an existing directory, so a reader or a crash never sees half a file. */
export async function replaceFile(file: string, body: string): Promise<void> {
  const tmp = `${file}.${process.pid}.${randomUUID()}.tmp`;
  await writeFile(tmp, body);
  await rename(tmp, file);
}

/** As replaceFile, creating the directory first. */
export async function writeFileAtomic(file: string, body: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await replaceFile(file, body);
}

/** Parses a stored state document; returns the reason when it cannot be used. */
export function parseStoredState(text: string): { ok: true; state: State } | { ok: false; reason: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { ok: false, reason: `not valid JSON (${(err as Error).message})` };
  }
  const r = StateSchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0]!;
    return { ok: false, reason: `schema mismatch at ${i.path.map(String).join('.') || '(root)'}: ${i.message}` };
  }
  return { ok: true, state: r.data };
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
      const age = await stat(mutex).then((st) => Date.now() - st.mtimeMs, () => 0);
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

export function createLocalStateStore(dir: string): StateStore {
  const file = path.join(dir, 'state.json');
  const lockFile = path.join(dir, 'run.lock');
  const lastGoodFile = path.join(dir, 'state.last-good.json');
  return {
    name: `local:${dir}`,
    async load(): Promise<LoadedState> {
      const text = await readIfExists(file);
      if (text === null) return { state: emptyState(), version: null, warnings: [] };
      const parsed = parseStoredState(text);
      if (parsed.ok) return { state: parsed.state, version: sha256(text), warnings: [] };
      const aside = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      await rename(file, aside);
      const problem = `[state/local] ${file} is unusable (${parsed.reason}); kept it as ${aside}`;
      const copy = await readIfExists(lastGoodFile);
      const fallback = copy === null ? null : parseStoredState(copy);
      if (fallback?.ok) {
        return {
          state: fallback.state,
          version: null,
          warnings: [`${problem} and carried on from the last good copy ${lastGoodFile} (saved at ${fallback.state.updated_at ?? 'an unknown time'})`],
        };
      }
      const why = fallback === null ? 'there is no last good copy' : `the last good copy is unusable too (${fallback.reason})`;
      return { state: emptyState(), version: null, warnings: [`${problem}; ${why}, so this run started from a clean state`] };
    },
    async save(state: State, expectedVersion: string | null): Promise<string> {
      const body = JSON.stringify(StateSchema.parse(state));
      return withMutex(dir, async () => {
        const current = await readIfExists(file);
        const currentVersion = current === null ? null : sha256(current);
        if (currentVersion !== expectedVersion) throw new StateConflictError(`local ${file}`);
        await writeFileAtomic(file, body);
        // Only after the state landed: the copy is never ahead of the state.
        await replaceFile(lastGoodFile, body);
        return sha256(body);
      });
    },
    async acquireLock(owner: string, ttlMs: number, now: Date): Promise<LockHandle | null> {
      await mkdir(dir, { recursive: true });
      const handle: LockHandle = { owner, expiresAt: new Date(now.getTime() + ttlMs).toISOString() };
      try {
        const fh = await open(lockFile, 'wx');
        await fh.writeFile(JSON.stringify(handle));
        await fh.close();
        return handle;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      // Taking over an expired lock is a read-then-write: under the mutex, only one racer sees it expired.
      return withMutex(dir, async () => {
        const held = await readIfExists(lockFile);
        let expiresAt = 0;
        try {
          expiresAt = Date.parse((JSON.parse(held ?? '{}') as { expiresAt?: string }).expiresAt ?? '');
        } catch {
          expiresAt = 0; // an unreadable lock is treated as expired
        }
        if (held !== null && Number.isFinite(expiresAt) && expiresAt > now.getTime()) return null;
        await writeFileAtomic(lockFile, JSON.stringify(handle));
        return handle;
      });
    },
    async releaseLock(handle: LockHandle): Promise<void> {
      await withMutex(dir, async () => {
        const held = await readIfExists(lockFile);
        let owner: string | null = null;
        try {
          owner = held === null ? null : (JSON.parse(held) as LockHandle).owner;
        } catch {
          owner = null;
        }
        if (owner === handle.owner) await rm(lockFile, { force: true });
      });
    },
  };
}
