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

export interface LockHandle {
  owner: string;
  expiresAt: string;
}

export interface StateStore {
  readonly name: string;
  load(): Promise<LoadedState>;
  /** Writes `state` only if the stored version is still `expectedVersion`; throws ConflictError otherwise. */
  save(state: State, expectedVersion: string | null): Promise<string>;
  /** Takes the run lock, or returns null when another live owner holds it. An expired lock is taken over. */
  acquireLock(owner: string, ttlMs: number, now: Date): Promise<LockHandle | null>;
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
