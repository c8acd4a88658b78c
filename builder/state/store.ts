// One interface for every place state is kept (local directory, S3 object), and what every store shares: loading with
// recovery, the lock record, read-modify-write with retries.
import { z } from 'zod';
import { ConflictError } from '../errors.ts';
import { StateSchema, emptyState, type State } from '../model/schemas.ts';

export interface LoadedState {
  state: State;
  /** Opaque version token (ETag for S3, content hash locally); `null` when nothing was stored yet. */
  version: string | null;
  /** Human-readable notes, e.g. that a corrupt file was set aside and a clean state started. */
  warnings: string[];
}

/**
 * What the lock record stores. `run` is the fencing number: every acquisition takes the stored record's number plus
 * one (a released or expired record keeps its number), so a later holder always has a higher one. A record without
 * one (written before fencing) counts as run 0.
 */
const LockRecordSchema = z.object({
  owner: z.string(),
  expiresAt: z.string().refine((v) => Number.isFinite(Date.parse(v))),
  run: z.int().min(0).catch(0),
});
export type LockRecord = z.infer<typeof LockRecordSchema>;

/** The text a store writes for `state`, checked against the schema first. */
export const serializeState = (state: State): string => JSON.stringify(StateSchema.parse(state));

/** Parses a stored state document; returns the reason when it cannot be used. */
function parseStoredState(text: string): { ok: true; state: State } | { ok: false; reason: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { ok: false, reason: `not valid JSON (${(err as Error).message})` };
  }
  const r = StateSchema.safeParse(raw);
  if (r.success) return { ok: true, state: r.data };
  const i = r.error.issues[0]!;
  return { ok: false, reason: `schema mismatch at ${i.path.map(String).join('.') || '(root)'}: ${i.message}` };
}

/** What a store read (`text`, null when nothing is stored, and its `version`), and how it sets an unusable one aside. */
export interface StoredState {
  /** Prefix and name (file, object) for the warning. */
  where: string;
  name: string;
  text: string | null;
  version: string | null;
  /** Keeps the unusable state somewhere else; returns where. */
  setAside(): Promise<string>;
  /** The version a load reports after setting the state aside (the next save is conditional on it). */
  versionAfterAside: string | null;
  lastGood(): Promise<string | null>;
  lastGoodName: string;
}

/**
 * How every store loads: nothing stored is a clean state, a usable one comes with its version. An unusable state is
 * never deleted: the store sets it aside, then carries on from the last good copy, or from a clean state when that is
 * unusable too, and says so in a warning.
 */
export async function loadState(s: StoredState): Promise<LoadedState> {
  if (s.text === null) return { state: emptyState(), version: null, warnings: [] };
  const first = parseStoredState(s.text);
  if (first.ok) return { state: first.state, version: s.version, warnings: [] };
  const problem = `[${s.where}] ${s.name} is unusable (${first.reason}); kept it as ${await s.setAside()}`;
  const lastGood = await s.lastGood();
  const fallback = lastGood === null ? null : parseStoredState(lastGood);
  if (fallback?.ok) {
    const when = fallback.state.updated_at ?? 'an unknown time';
    const warning = `${problem} and carried on from the last good copy ${s.lastGoodName} (saved at ${when})`;
    return { state: fallback.state, version: s.versionAfterAside, warnings: [warning] };
  }
  const why =
    fallback === null ? 'there is no last good copy' : `the last good copy is unusable too (${fallback.reason})`;
  const warning = `${problem}; ${why}, so this run started from a clean state`;
  return { state: emptyState(), version: s.versionAfterAside, warnings: [warning] };
}

/** The lock as its holder knows it: the record it wrote and that record's stored version (ETag, hash, revision). */
export interface LockHandle extends LockRecord {
  version: string;
}

/** A stored lock record; null if unreadable. */
export function parseLockRecord(text: string): LockRecord | null {
  try {
    return LockRecordSchema.parse(JSON.parse(text));
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
