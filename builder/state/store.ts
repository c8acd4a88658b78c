// One interface for every place state is kept (local directory, S3 object, memory).
import { ConflictError } from '../errors.ts';
import type { State } from '../model/schemas.ts';

export interface LoadedState {
  state: State;
  /** Opaque version token (ETag for S3, content hash locally); `null` when nothing was stored yet. */
  version: string | null;
  /** Human-readable notes, e.g. that a corrupt file was set aside and a clean state started. */
  warnings: string[];
}

/**
 * What the lock record stores. `run` is the fencing number: every acquisition takes the stored record's number plus
 * one (a released or expired record keeps its number), so a later holder always has a higher one.
 */
export interface LockRecord {
  owner: string;
  expiresAt: string;
  run: number;
}

/** The lock as its holder knows it: the record it wrote and that record's stored version (ETag, hash, revision). */
export interface LockHandle extends LockRecord {
  version: string;
}

/** A stored lock record; a record without a run number (written before fencing) counts as run 0. Null if unreadable. */
export function parseLockRecord(text: string): LockRecord | null {
  try {
    const raw = JSON.parse(text) as Partial<LockRecord>;
    if (
      typeof raw.owner !== 'string' ||
      typeof raw.expiresAt !== 'string' ||
      !Number.isFinite(Date.parse(raw.expiresAt))
    )
      return null;
    const run = typeof raw.run === 'number' && Number.isSafeInteger(raw.run) && raw.run >= 0 ? raw.run : 0;
    return { owner: raw.owner, expiresAt: raw.expiresAt, run };
  } catch {
    return null;
  }
}

/** Whether a stored record still holds the lock at `now` (an unreadable one never does: it would block forever). */
export function lockIsLive(held: LockRecord | null, now: Date): boolean {
  return held !== null && Date.parse(held.expiresAt) > now.getTime();
}

/** The record a new holder writes over `held` (null: none stored, or unreadable). */
export function nextLockRecord(held: LockRecord | null, owner: string, ttlMs: number, now: Date): LockRecord {
  return { owner, expiresAt: new Date(now.getTime() + ttlMs).toISOString(), run: (held?.run ?? 0) + 1 };
}

/** A released lock: expired for everyone, its run number kept for the next holder to count on. */
export const releasedLockRecord = (handle: LockHandle): LockRecord => ({
  owner: handle.owner,
  expiresAt: new Date(0).toISOString(),
  run: handle.run,
});

/** The one serialisation of a lock record: a holder proves its lock by writing the very same bytes again. */
export const lockBody = (r: LockRecord): string =>
  JSON.stringify({ owner: r.owner, expiresAt: r.expiresAt, run: r.run });

export interface StateStore {
  readonly name: string;
  load(): Promise<LoadedState>;
  /** Writes `state` only if the stored version is still `expectedVersion`; throws ConflictError otherwise. */
  save(state: State, expectedVersion: string | null): Promise<string>;
  /** Takes the run lock, or returns null when another live owner holds it. An expired lock is taken over. */
  acquireLock(owner: string, ttlMs: number, now: Date): Promise<LockHandle | null>;
  /**
   * Proves with a conditional request that the lock is still exactly the record this run wrote (fencing: before
   * saving state and before each publish phase). Throws ConflictError when another run has taken it over since.
   */
  confirmLock(handle: LockHandle): Promise<void>;
  /** Releases the lock if it is still this run's; a lock another run took over is left alone. */
  releaseLock(handle: LockHandle): Promise<void>;
}

/**
 * Read-modify-write with retries: a lost race is retried from a fresh read, so newer state is never overwritten.
 */
export async function updateState(
  store: StateStore,
  mutate: (s: State) => State,
  maxAttempts = 5,
  onWarnings: (warnings: string[]) => void = () => {},
): Promise<State> {
  for (let attempt = 1; ; attempt++) {
    const { state, version, warnings } = await store.load();
    if (warnings.length > 0) onWarnings(warnings);
    const next = mutate(state);
    try {
      await store.save(next, version);
      return next;
    } catch (err) {
      if (!(err instanceof ConflictError) || attempt >= maxAttempts) throw err;
    }
  }
}
