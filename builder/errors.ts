// One error vocabulary for the whole builder. Every error names where it happened (`[where] message`) and keeps
// its cause; the subclass says what kind of failure it is, which is all main.ts needs to pick the exit code.
// Expected failures of a source are values (FetchResult, SourceResult), not these: these are for runs that stop.

export class BuilderError extends Error {
  /** `where`: the module or step that failed, e.g. `publish/s3` or `state/local`. */
  constructor(where: string, message: string, opts: ErrorOptions = {}) {
    super(`[${where}] ${message}`, opts);
    this.name = new.target.name;
  }
}

/** The command line or the environment asks for something impossible: fix the invocation. */
export class ConfigError extends BuilderError {}

/** Curated data or a stored document is invalid: fix the data. */
export class DataError extends BuilderError {}

/** A conditional write lost to another writer (state, manifest, lock): rerun; nothing newer was overwritten. */
export class ConflictError extends BuilderError {}

/** The store or the sink failed (disk, S3): check the storage, then rerun. */
export class StorageError extends BuilderError {}

/** A source misbehaved in a way a value cannot carry (an adapter bug, a refused configuration). */
export class SourceError extends BuilderError {}

/** Exit codes of the build and the scheduled jobs (docs/configure.md); `failed`: no valid API (data, source, a bug). */
export const EXIT = { ok: 0, failed: 1, config: 2, conflict: 3, storage: 4 } as const;

export function exitCodeFor(err: unknown): number {
  if (err instanceof ConfigError) return EXIT.config;
  if (err instanceof ConflictError) return EXIT.conflict;
  if (err instanceof StorageError) return EXIT.storage;
  return EXIT.failed;
}

export const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
