// One interface for every place state is kept (local directory, S3 object), and what every store shares: loading with
// recovery, the run lock with fencing, read-modify-write with retries. A store only says how it reads and writes
// versioned objects (VersionedObjects); everything else is decided here once.
import { z } from 'zod';
import { ConflictError } from '../errors.ts';
import { parseJsonWith } from '../fsutil/json.ts';
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
type LockRecord = z.infer<typeof LockRecordSchema>;

/** The lock as its holder knows it: the record it wrote and that record's stored version (ETag, hash, revision). */
export interface LockHandle extends LockRecord {
  version: string;
}

export interface StateStore {
  readonly name: string;
  load(): Promise<LoadedState>;
  /** Writes `state` only if the stored version is still `expectedVersion`; throws ConflictError otherwise. */
  save(state: State, expectedVersion: string | null): Promise<string>;
  /** Takes the run lock, or returns null when another live owner holds it. An expired lock is taken over. */
  acquireLock(owner: string, ttlMs: number, now: Date): Promise<LockHandle | null>;
  /**
   * Proves with a conditional request that the lock is still exactly the record this run wrote (fencing: before
   * `step`, i.e. saving state and each publish phase). Throws ConflictError when another run has taken it over since.
   */
  confirmLock(handle: LockHandle, step?: string): Promise<void>;
  /** Releases the lock if it is still this run's; a lock another run took over is left alone. */
  releaseLock(handle: LockHandle): Promise<void>;
}

export interface StoredObject {
  body: Uint8Array;
  version: string;
}

/** The storage under a store: objects read with a version and written only while they still have a given one. */
export interface VersionedObjects {
  /** `key` as a message names it (a path, an s3:// URL). */
  name(key: string): string;
  read(key: string): Promise<StoredObject | null>;
  /** Writes `body` if the object's version is still `expected` (null: no object); the new version, or null if not. */
  writeIf(key: string, body: string, expected: string | null): Promise<string | null>;
  write(key: string, body: string): Promise<unknown>;
  /** Keeps an unusable object somewhere else: where, and the version the next save of `key` must expect. */
  setAside(key: string, stored: StoredObject): Promise<{ name: string; version: string | null }>;
}

/** The one serialisation of a lock record: a holder proves its lock by writing the very same bytes again. */
const lockBody = (r: LockRecord): string => JSON.stringify({ owner: r.owner, expiresAt: r.expiresAt, run: r.run });

/**
 * A StateStore on `objects`: the state at `keys.state`, a copy of every saved state at `keys.lastGood` (written after
 * the state landed, read only when the state is unusable), the run lock at `keys.lock`.
 */
export function createStateStore(
  name: string,
  where: string,
  objects: VersionedObjects,
  keys: { state: string; lastGood: string; lock: string },
): StateStore {
  return {
    name,

    // Nothing stored is a clean state, a usable one comes with its version. An unusable state is never deleted: it is
    // set aside, and the run carries on from the last good copy, or from a clean state when that is unusable too.
    async load(): Promise<LoadedState> {
      const stored = await objects.read(keys.state);
      if (stored === null) return { state: emptyState(), version: null, warnings: [] };
      const first = parseJsonWith(stored.body, StateSchema);
      if (first.ok) return { state: first.data, version: stored.version, warnings: [] };
      const aside = await objects.setAside(keys.state, stored);
      const problem = `[${where}] ${objects.name(keys.state)} is unusable (${first.reason}); kept it as ${aside.name}`;
      const copy = await objects.read(keys.lastGood);
      const fallback = copy && parseJsonWith(copy.body, StateSchema);
      if (fallback?.ok) {
        const when = fallback.data.updated_at ?? 'an unknown time';
        const warning = `${problem} and carried on from the last good copy ${objects.name(keys.lastGood)} (saved at ${when})`;
        return { state: fallback.data, version: aside.version, warnings: [warning] };
      }
      const why =
        fallback === null ? 'there is no last good copy' : `the last good copy is unusable too (${fallback.reason})`;
      const warning = `${problem}; ${why}, so this run started from a clean state`;
      return { state: emptyState(), version: aside.version, warnings: [warning] };
    },

    async save(state, expectedVersion) {
      const body = JSON.stringify(StateSchema.parse(state)); // checked against the schema first
      const version = await objects.writeIf(keys.state, body, expectedVersion);
      const refused = `${objects.name(keys.state)}: state changed since it was read (conditional write refused)`;
      if (version === null) throw new ConflictError(where, refused);
      // Only after the state landed: the copy is never ahead of the state. A failure here fails the run loudly (the
      // state itself is saved; the next run writes the copy again).
      await objects.write(keys.lastGood, body);
      return version;
    },

    // Only conditional writes decide: of several runners creating a free lock or taking over an expired one (with
    // If-Match on its version), exactly one wins.
    async acquireLock(owner, ttlMs, now) {
      const expiresAt = new Date(now.getTime() + ttlMs).toISOString();
      // Two rounds: the lock may vanish between a failed create and the read (deleted by hand).
      for (let round = 0; round < 2; round++) {
        const fresh = { owner, expiresAt, run: 1 };
        const created = await objects.writeIf(keys.lock, lockBody(fresh), null);
        if (created !== null) return { ...fresh, version: created };
        const held = await objects.read(keys.lock);
        if (held === null) continue;
        // An unreadable lock counts as expired: refusing forever would stop every future run.
        const read = parseJsonWith(held.body, LockRecordSchema);
        const lock = read.ok ? read.data : null;
        if (lock !== null && Date.parse(lock.expiresAt) > now.getTime()) return null;
        const next = { owner, expiresAt, run: (lock?.run ?? 0) + 1 };
        const version = await objects.writeIf(keys.lock, lockBody(next), held.version);
        return version === null ? null : { ...next, version };
      }
      return null;
    },

    async confirmLock(handle, step = 'writing') {
      // Writing the very bytes this run wrote, conditional on their version: it lands (nothing changes) only while
      // the lock is still that version. A takeover or a release by anyone else changed it.
      if ((await objects.writeIf(keys.lock, lockBody(handle), handle.version)) !== null) return;
      const lost = `lost the run lock (run ${handle.run}) before ${step}: another run took it over`;
      throw new ConflictError(where, `${objects.name(keys.lock)}: ${lost}, so this run writes nothing more`);
    },

    async releaseLock(handle) {
      // Overwritten as expired, not deleted, conditional on the version this run wrote: a lock another run took over is
      // left alone (radosgw ignores If-Match on DELETE), and the record keeps the run number the next holder counts on.
      await objects.writeIf(keys.lock, lockBody({ ...handle, expiresAt: new Date(0).toISOString() }), handle.version);
    },
  };
}

/** Read-modify-write with retries: a lost race is retried from a fresh read, so newer state is never overwritten. */
export async function updateState(
  store: StateStore,
  mutate: (s: State) => State,
  maxAttempts = 5,
  onWarnings: (warnings: string[]) => void = () => {},
  /** What the caller already loaded (its warnings already seen): the first attempt starts from it. */
  loaded?: LoadedState,
): Promise<State> {
  for (let attempt = 1; ; attempt++) {
    const first = attempt === 1 ? loaded : undefined;
    const { state, version, warnings } = first ?? (await store.load());
    if (first === undefined && warnings.length > 0) onWarnings(warnings);
    const next = mutate(state);
    try {
      await store.save(next, version);
      return next;
    } catch (err) {
      if (!(err instanceof ConflictError) || attempt >= maxAttempts) throw err;
    }
  }
}
