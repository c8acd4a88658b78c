// StateStore in memory: the same contract as the local and S3 stores (conditional saves, last good copy, corrupt
// state set aside, run lock), for tests and benches that need no disk or bucket. Several stores may share one
// `MemoryStateStorage`, as several runs share one bucket.
import { ConflictError } from '../../builder/errors.ts';
import type { State } from '../../builder/model/schemas.ts';
import {
  loadState,
  lockIsLive,
  nextLockRecord,
  releasedLockRecord,
  serializeState,
  type LoadedState,
  type LockHandle,
  type LockRecord,
  type StateStore,
} from '../../builder/state/store.ts';

export interface MemoryStateStorage {
  /** The stored state document as text (what a file or an object would hold); null when none. */
  text: string | null;
  /** Bumped on every write; the version token is its decimal string. */
  revision: number;
  lastGood: string | null;
  /** Unusable state documents set aside, oldest first. */
  aside: string[];
  /** The lock record and its revision (the version a holder proves), as a lock object would hold them. */
  lock: { record: LockRecord; revision: number } | null;
}

export function createMemoryStateStorage(): MemoryStateStorage {
  return { text: null, revision: 0, lastGood: null, aside: [], lock: null };
}

const WHERE = 'state/memory';

export function createMemoryStateStore(storage: MemoryStateStorage = createMemoryStateStorage()): StateStore {
  const version = () => (storage.text === null ? null : String(storage.revision));
  return {
    name: 'memory',
    async load(): Promise<LoadedState> {
      return loadState({
        where: WHERE,
        name: 'memory:state',
        text: storage.text,
        version: version(),
        // Kept once per revision, as the S3 store keeps one copy per ETag.
        setAside: async () => {
          if (!storage.aside.includes(storage.text!)) storage.aside.push(storage.text!);
          return `memory:state@${storage.revision}`;
        },
        versionAfterAside: version(),
        lastGood: async () => storage.lastGood,
        lastGoodName: 'memory:last-good',
      });
    },
    async save(state: State, expectedVersion: string | null): Promise<string> {
      const body = serializeState(state);
      if (version() !== expectedVersion)
        throw new ConflictError(WHERE, 'state changed since it was read (conditional write refused)');
      storage.text = body;
      storage.revision++;
      storage.lastGood = body;
      return String(storage.revision);
    },
    async acquireLock(owner: string, ttlMs: number, now: Date): Promise<LockHandle | null> {
      const held = storage.lock;
      if (lockIsLive(held?.record ?? null, now)) return null;
      const record = nextLockRecord(held?.record ?? null, owner, ttlMs, now);
      storage.lock = { record, revision: (held?.revision ?? 0) + 1 };
      return { ...record, version: String(storage.lock.revision) };
    },
    async confirmLock(handle: LockHandle): Promise<void> {
      if (storage.lock === null || String(storage.lock.revision) !== handle.version) {
        throw new ConflictError(
          WHERE,
          `the run lock is no longer this run's (run ${handle.run}): another run took it over`,
        );
      }
    },
    async releaseLock(handle: LockHandle): Promise<void> {
      const held = storage.lock;
      if (held !== null && String(held.revision) === handle.version)
        storage.lock = { record: releasedLockRecord(handle), revision: held.revision + 1 };
    },
  };
}
