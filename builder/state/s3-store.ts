// StateStore in one S3 object outside the public prefix: conditional writes on the ETag, a corrupt object
// copied aside (never lost) and replaced by the last good copy, and a run lock that only conditional writes can take.
//
// Every decision rests on conditional PUTs (If-None-Match: * to create, If-Match: <etag> to replace), which both
// AWS S3 and radosgw enforce atomically. Conditional DELETE and conditional COPY are not relied upon: radosgw
// (pacific) ignores If-Match on DELETE and x-amz-copy-source-if-match on COPY.
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { JSON_CONTENT_TYPE, NO_STORE } from '../contract.ts';
import { ConfigError, ConflictError } from '../errors.ts';
import type { State } from '../model/schemas.ts';
import { described, getObject, putIf } from '../s3/client.ts';
import { DEFAULT_LOCK_KEY, DEFAULT_STATE_KEY, assertPrivateKey } from '../s3/config.ts';
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
  type LockRecord,
  type StateStore,
} from './store.ts';

export interface S3StateStoreOptions {
  client: S3Client;
  bucket: string;
  key?: string;
  lockKey?: string;
  /** Where an unusable state object is copied before a clean start; default `state/corrupt/`. */
  backupPrefix?: string;
  /** The public API prefix, to refuse keeping state where the CDN would serve it. */
  publicPrefix?: string;
}

export const DEFAULT_CORRUPT_PREFIX = 'state/corrupt/';
/** A second copy of every saved state, `<key>.last-good`, read only when the state object is unusable. */
export const LAST_GOOD_SUFFIX = '.last-good';
const WHERE = 'state/s3';
const utf8 = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

export function createS3StateStore(opts: S3StateStoreOptions): StateStore {
  const { client, bucket } = opts;
  const key = opts.key ?? DEFAULT_STATE_KEY;
  const lockKey = opts.lockKey ?? DEFAULT_LOCK_KEY;
  const corruptPrefix = opts.backupPrefix ?? DEFAULT_CORRUPT_PREFIX;
  const lastGoodKey = `${key}${LAST_GOOD_SUFFIX}`;
  for (const k of [key, lockKey, corruptPrefix, lastGoodKey]) assertPrivateKey(k, opts.publicPrefix ?? '', WHERE);
  if (new Set([key, lockKey, lastGoodKey]).size !== 3)
    throw new ConfigError(WHERE, 'the state, its last good copy and the lock need three different keys');
  const get = (k: string) => getObject(client, bucket, k, WHERE);
  const json = (k: string, body: string) => ({
    Bucket: bucket,
    Key: k,
    Body: body,
    ContentType: JSON_CONTENT_TYPE,
    CacheControl: NO_STORE,
  });

  /** Writes the lock record; its new ETag when we won, null when a condition failed (someone else got there first). */
  const putLock = (lock: LockRecord, expectedEtag: string | null) =>
    putIf(client, json(lockKey, lockBody(lock)), expectedEtag, WHERE);

  return {
    name: `s3://${bucket}/${key}`,

    async load(): Promise<LoadedState> {
      const stored = await get(key);
      return loadState({
        where: WHERE,
        name: `s3://${bucket}/${key}`,
        text: stored && utf8(stored.body),
        version: stored?.etag ?? null,
        // The exact bytes, named by their ETag: loading the same corrupt object twice keeps one copy.
        setAside: async () => {
          const aside = `${corruptPrefix}${key.replace(/\//g, '_')}.${stored!.etag || 'no-etag'}`;
          const input = { Bucket: bucket, Key: aside, Body: stored!.body, ContentType: 'application/octet-stream' };
          await putIf(client, input, null, WHERE);
          return `s3://${bucket}/${aside}`;
        },
        // The corrupt object's ETag, so the next save replaces it conditionally.
        versionAfterAside: stored?.etag ?? null,
        lastGood: async () => {
          const copy = await get(lastGoodKey);
          return copy && utf8(copy.body);
        },
        lastGoodName: `s3://${bucket}/${lastGoodKey}`,
      });
    },

    async save(state: State, expectedVersion: string | null): Promise<string> {
      const body = serializeState(state);
      const conflict = 'state changed since it was read (conditional write refused)';
      // With `conflict` given, putIf returns the new ETag or throws.
      const version = (await putIf(client, json(key, body), expectedVersion, WHERE, conflict))!;
      // Only after the state landed: the copy is never ahead of the state. A failure here fails the run loudly
      // (the state itself is saved; the next run writes the copy again).
      await described(WHERE, 'PUT', bucket, lastGoodKey, () =>
        client.send(new PutObjectCommand(json(lastGoodKey, body))),
      );
      return version;
    },

    async acquireLock(owner: string, ttlMs: number, now: Date): Promise<LockHandle | null> {
      // Two rounds: the lock may vanish between a failed create and the read (deleted by hand or by an old release).
      for (let round = 0; round < 2; round++) {
        const fresh = nextLockRecord(null, owner, ttlMs, now);
        const created = await putLock(fresh, null);
        if (created !== null) return { ...fresh, version: created };
        const held = await get(lockKey);
        if (held === null) continue;
        const lock = parseLockRecord(utf8(held.body));
        // An unreadable lock counts as expired: refusing forever would stop every future run.
        if (lockIsLive(lock, now)) return null;
        // Conditional on the expired lock's ETag: of several runners taking over the same stale lock, one wins.
        const next = nextLockRecord(lock, owner, ttlMs, now);
        const version = await putLock(next, held.etag);
        return version === null ? null : { ...next, version };
      }
      return null;
    },

    async confirmLock(handle: LockHandle): Promise<void> {
      // The proof is a conditional PUT of the very bytes this run wrote: it lands (same ETag, nothing changes) only
      // while the lock object is still that version. A takeover or a release by anyone else changed it.
      if ((await putLock(handle, handle.version)) === null) {
        throw new ConflictError(
          WHERE,
          `s3://${bucket}/${lockKey}: the run lock is no longer this run's (run ${handle.run}): another run took it over`,
        );
      }
    },

    async releaseLock(handle: LockHandle): Promise<void> {
      // Released by overwriting, conditional on the version this run wrote: an unconditional DELETE (all radosgw
      // offers) could remove a lock another runner took over in between. The record keeps its run number.
      await putLock(releasedLockRecord(handle), handle.version);
    },
  };
}
