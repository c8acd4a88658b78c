// StateStore on the local disk: atomic writes, a corrupt file set aside (never deleted), a lock file.
import { createHash } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
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

/** Write-then-rename, so a reader or a crash never sees half a file. */
export async function writeFileAtomic(file: string, body: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(tmp, body);
  await rename(tmp, file);
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

export function createLocalStateStore(dir: string): StateStore {
  const file = path.join(dir, 'state.json');
  const lockFile = path.join(dir, 'run.lock');
  return {
    name: `local:${dir}`,
    async load(): Promise<LoadedState> {
      const text = await readIfExists(file);
      if (text === null) return { state: emptyState(), version: null, warnings: [] };
      const parsed = parseStoredState(text);
      if (parsed.ok) return { state: parsed.state, version: sha256(text), warnings: [] };
      const aside = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      await rename(file, aside);
      return {
        state: emptyState(),
        version: null,
        warnings: [`[state/local] ${file} is unusable (${parsed.reason}); kept it as ${aside} and started from a clean state`],
      };
    },
    async save(state: State, expectedVersion: string | null): Promise<string> {
      const current = await readIfExists(file);
      const currentVersion = current === null ? null : sha256(current);
      if (currentVersion !== expectedVersion) throw new StateConflictError(`local ${file}`);
      const body = JSON.stringify(StateSchema.parse(state));
      await writeFileAtomic(file, body);
      return sha256(body);
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
      const held = await readIfExists(lockFile);
      let expiresAt = 0;
      try {
        expiresAt = Date.parse((JSON.parse(held ?? '{}') as { expiresAt?: string }).expiresAt ?? '');
      } catch {
        expiresAt = 0; // an unreadable lock is treated as expired
      }
      if (Number.isFinite(expiresAt) && expiresAt > now.getTime()) return null;
      await writeFileAtomic(lockFile, JSON.stringify(handle));
      return handle;
    },
    async releaseLock(handle: LockHandle): Promise<void> {
      const held = await readIfExists(lockFile);
      if (held !== null && (JSON.parse(held) as LockHandle).owner === handle.owner) await rm(lockFile, { force: true });
    },
  };
}
