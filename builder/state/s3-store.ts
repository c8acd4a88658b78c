// StateStore in S3 objects outside the public prefix: the state, its last good copy and the run lock, each decision
// resting on conditional PUTs (If-None-Match: * to create, If-Match: <etag> to replace), which both AWS S3 and
// radosgw enforce atomically. Conditional DELETE and conditional COPY are not relied upon: radosgw (pacific) ignores
// If-Match on DELETE and x-amz-copy-source-if-match on COPY.
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { ConfigError } from '../errors.ts';
import { described, getObject, noStoreJson, putIf } from '../s3/client.ts';
import { DEFAULT_LOCK_KEY, DEFAULT_STATE_KEY, assertPrivateKey } from '../s3/config.ts';
import { createStateStore, type StateStore } from './store.ts';

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

export function createS3StateStore(opts: S3StateStoreOptions): StateStore {
  const { client, bucket, key = DEFAULT_STATE_KEY, lockKey = DEFAULT_LOCK_KEY, publicPrefix = '' } = opts;
  const corruptPrefix = opts.backupPrefix ?? DEFAULT_CORRUPT_PREFIX;
  const lastGoodKey = `${key}${LAST_GOOD_SUFFIX}`;
  for (const k of [key, lockKey, corruptPrefix, lastGoodKey]) assertPrivateKey(k, publicPrefix, WHERE);
  if (new Set([key, lockKey, lastGoodKey]).size !== 3)
    throw new ConfigError(WHERE, 'the state, its last good copy and the lock need three different keys');
  return createStateStore(
    `s3://${bucket}/${key}`,
    WHERE,
    {
      name: (k) => `s3://${bucket}/${k}`,
      read: (k) => getObject(client, bucket, k, WHERE).then((s) => s && { body: s.body, version: s.etag }),
      writeIf: (k, body, expected) => putIf(client, noStoreJson(bucket, k, body), expected, WHERE),
      write: (k, body) =>
        described(WHERE, 'PUT', bucket, k, () => client.send(new PutObjectCommand(noStoreJson(bucket, k, body)))),
      // The exact bytes, named by their ETag: loading the same corrupt object twice keeps one copy. The corrupt
      // object stays, and the next save replaces it conditionally on its ETag.
      setAside: async (k, stored) => {
        const aside = `${corruptPrefix}${k.replace(/\//g, '_')}.${stored.version || 'no-etag'}`;
        const input = { Bucket: bucket, Key: aside, Body: stored.body, ContentType: 'application/octet-stream' };
        await putIf(client, input, null, WHERE);
        return { name: `s3://${bucket}/${aside}`, version: stored.version };
      },
    },
    { state: key, lastGood: lastGoodKey, lock: lockKey },
  );
}
