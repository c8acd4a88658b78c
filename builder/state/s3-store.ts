// StateStore in one S3 object outside the public prefix: conditional writes on the ETag, a corrupt object
// copied aside (never lost) and replaced by the last good copy, and a run lock that only conditional writes can take.
//
// Every decision rests on conditional PUTs (If-None-Match: * to create, If-Match: <etag> to replace), which both
// AWS S3 and radosgw enforce atomically. Conditional DELETE and conditional COPY are not relied upon: radosgw
// (pacific) ignores If-Match on DELETE and x-amz-copy-source-if-match on COPY.
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { JSON_CONTENT_TYPE, NO_STORE } from '../contract.ts';
import { ConfigError, ConflictError } from '../errors.ts';
import { emptyState, type State } from '../model/schemas.ts';
import { getObjectBytes, putIfAbsent, putIfMatch } from '../s3/conditional.ts';
import { DEFAULT_LOCK_KEY, DEFAULT_STATE_KEY, assertPrivateKey } from '../s3/config.ts';
import { describeS3Error, isConditionFailure } from '../s3/errors.ts';
import { classifyStored, corruptObjectKey, recoverState, serializeState } from './recovery.ts';
import {
  lockBody,
  lockIsLive,
  nextLockRecord,
  parseLockRecord,
  releasedLockRecord,
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
  /** A second copy of every saved state, read only when the state object is unusable; default `<key>.last-good`. */
  lastGoodKey?: string;
  /** The public API prefix, to refuse keeping state where the CDN would serve it. */
  publicPrefix?: string;
}

export const DEFAULT_CORRUPT_PREFIX = 'state/corrupt/';
export const LAST_GOOD_SUFFIX = '.last-good';
const WHERE = 'state/s3';
const parseLock = (bytes: Uint8Array): LockRecord | null => parseLockRecord(Buffer.from(bytes).toString('utf8'));

/**
 * A corrupt state: its exact bytes are kept under a name derived from their ETag (loading the same corrupt object twice
 * keeps one copy), and the state is recovered from the last good copy. The returned version is the corrupt object's
 * ETag, so the next save replaces it conditionally.
 */
async function recoverCorrupt(
  client: S3Client,
  bucket: string,
  keys: { key: string; corruptPrefix: string; lastGoodKey: string },
  stored: { body: Uint8Array; etag: string },
  reason: string,
  lastGood: { body: Uint8Array } | null,
): Promise<LoadedState> {
  const aside = corruptObjectKey(keys.corruptPrefix, keys.key, stored.etag);
  try {
    await putIfAbsent(client, {
      Bucket: bucket,
      Key: aside,
      Body: stored.body,
      ContentType: 'application/octet-stream',
    });
  } catch (err) {
    if (!isConditionFailure(err)) throw describeS3Error(WHERE, 'PUT', bucket, aside, err);
  }
  const r = recoverState({
    where: WHERE,
    stored: `s3://${bucket}/${keys.key}`,
    aside: `s3://${bucket}/${aside}`,
    reason,
    lastGood: lastGood === null ? null : Buffer.from(lastGood.body).toString('utf8'),
    lastGoodName: `s3://${bucket}/${keys.lastGoodKey}`,
  });
  return { state: r.state, version: stored.etag, warnings: [r.warning] };
}

export function createS3StateStore(opts: S3StateStoreOptions): StateStore {
  const { client, bucket } = opts;
  const key = opts.key ?? DEFAULT_STATE_KEY;
  const lockKey = opts.lockKey ?? DEFAULT_LOCK_KEY;
  const corruptPrefix = opts.backupPrefix ?? DEFAULT_CORRUPT_PREFIX;
  const lastGoodKey = opts.lastGoodKey ?? `${key}${LAST_GOOD_SUFFIX}`;
  const publicPrefix = opts.publicPrefix ?? '';
  for (const k of [key, lockKey, corruptPrefix, lastGoodKey]) assertPrivateKey(k, publicPrefix, WHERE);
  if (new Set([key, lockKey, lastGoodKey]).size !== 3)
    throw new ConfigError(WHERE, 'the state, its last good copy and the lock need three different keys');

  async function get(k: string) {
    try {
      return await getObjectBytes(client, bucket, k);
    } catch (err) {
      throw describeS3Error(WHERE, 'GET', bucket, k, err);
    }
  }

  /** Writes the lock record; its new ETag when we won, null when a condition failed (someone else got there first). */
  async function putLock(lock: LockRecord, expectedEtag: string | null): Promise<string | null> {
    const input = {
      Bucket: bucket,
      Key: lockKey,
      Body: lockBody(lock),
      ContentType: JSON_CONTENT_TYPE,
      CacheControl: NO_STORE,
    };
    try {
      return expectedEtag === null ? await putIfAbsent(client, input) : await putIfMatch(client, input, expectedEtag);
    } catch (err) {
      if (isConditionFailure(err)) return null;
      throw describeS3Error(WHERE, 'PUT', bucket, lockKey, err);
    }
  }

  return {
    name: `s3://${bucket}/${key}`,

    async load(): Promise<LoadedState> {
      const stored = await get(key);
      const first = classifyStored(stored === null ? null : Buffer.from(stored.body).toString('utf8'));
      if (stored === null || first.kind === 'empty') return { state: emptyState(), version: null, warnings: [] };
      if (first.kind === 'ok') return { state: first.state, version: stored.etag, warnings: [] };
      const lastGood = await get(lastGoodKey);
      return recoverCorrupt(client, bucket, { key, corruptPrefix, lastGoodKey }, stored, first.reason, lastGood);
    },

    async save(state: State, expectedVersion: string | null): Promise<string> {
      const body = serializeState(state);
      const input = { Bucket: bucket, Key: key, Body: body, ContentType: JSON_CONTENT_TYPE, CacheControl: NO_STORE };
      let version: string;
      try {
        version =
          expectedVersion === null
            ? await putIfAbsent(client, input)
            : await putIfMatch(client, input, expectedVersion);
      } catch (err) {
        if (isConditionFailure(err))
          throw new ConflictError(
            WHERE,
            `PUT s3://${bucket}/${key}: state changed since it was read (conditional write refused)`,
            { cause: err },
          );
        throw describeS3Error(WHERE, 'PUT', bucket, key, err);
      }
      // Only after the state landed: the copy is never ahead of the state. A failure here fails the run loudly
      // (the state itself is saved; the next run writes the copy again).
      try {
        await client.send(new PutObjectCommand({ ...input, Key: lastGoodKey }));
      } catch (err) {
        throw describeS3Error(WHERE, 'PUT', bucket, lastGoodKey, err);
      }
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
        const lock = parseLock(held.body);
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
