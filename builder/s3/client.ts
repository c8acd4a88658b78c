// The S3 client every S3 part of the project (state store, sink, backups, benches) uses, and the requests they share:
// reads, listings and conditional writes whose outcome is always known, with SDK errors turned into our own.
import { randomUUID } from 'node:crypto';
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type PutObjectCommandInput,
} from '@aws-sdk/client-s3';
import { JSON_CONTENT_TYPE, NO_STORE } from '../contract.ts';
import { ConflictError, StorageError } from '../errors.ts';

/**
 * A request whose connection stays silent this long fails (and is retried by the SDK) instead of hanging the run:
 * the SDK has no timeout by default, and a stalled S3 server (a radosgw whose OSD is full accepts requests and never
 * answers them) would otherwise hold the run lock until it expires. It is an idle timeout, so a large upload that
 * keeps moving is never cut off.
 */
export const S3_IDLE_TIMEOUT_MS = 30_000;
export const S3_CONNECT_TIMEOUT_MS = 5_000;

/**
 * `credentials` defaults to the SDK's own chain (environment, profile, instance role); the publish bench passes
 * radosgw's test keys.
 */
export function createS3Client(
  cfg: { region: string; endpoint: string | null },
  opts: { idleMs?: number; connectMs?: number; credentials?: { accessKeyId: string; secretAccessKey: string } } = {},
): S3Client {
  return new S3Client({
    region: cfg.region,
    requestHandler: {
      socketTimeout: opts.idleMs ?? S3_IDLE_TIMEOUT_MS,
      connectionTimeout: opts.connectMs ?? S3_CONNECT_TIMEOUT_MS,
    },
    ...(opts.credentials ? { credentials: opts.credentials } : {}),
    ...(cfg.endpoint !== null
      ? {
          endpoint: cfg.endpoint,
          forcePathStyle: true,
          // Older S3-compatible servers reject or mis-handle the SDK's default CRC checksums.
          requestChecksumCalculation: 'WHEN_REQUIRED' as const,
          responseChecksumValidation: 'WHEN_REQUIRED' as const,
        }
      : {}),
  });
}

type SdkError = { name?: string; message?: string; $metadata?: { httpStatusCode?: number } } | null;

function httpStatusOf(err: unknown): number | null {
  const status = (err as SdkError)?.$metadata?.httpStatusCode;
  return typeof status === 'number' ? status : null;
}

const isNotFound = (err: unknown): boolean =>
  httpStatusOf(err) === 404 || ['NoSuchKey', 'NotFound'].includes((err as SdkError)?.name ?? '');

/** A lost conditional write: 412 Precondition Failed, or AWS's 409 when two conditional writes overlap. */
function isConditionFailure(err: unknown): boolean {
  const status = httpStatusOf(err);
  const name = (err as SdkError)?.name;
  return status === 412 || name === 'PreconditionFailed' || (status === 409 && name === 'ConditionalRequestConflict');
}

/** `[where] VERB s3://bucket/key -> 503 SlowDown`, as a StorageError carrying the SDK error as its cause. */
export function describeS3Error(where: string, verb: string, bucket: string, key: string, err: unknown): StorageError {
  const name = (err as SdkError)?.name ?? 'Error';
  const message = (err as SdkError)?.message ?? String(err);
  const detail = message && message !== name ? `: ${message}` : '';
  const status = httpStatusOf(err) ?? 'no response';
  return new StorageError(where, `${verb} s3://${bucket}/${key} -> ${status} ${name}${detail}`, { cause: err });
}

/** Runs one request, its failure described as for describeS3Error. */
export const described = <T>(where: string, verb: string, bucket: string, key: string, request: () => Promise<T>) =>
  request().catch((err: unknown) => {
    throw describeS3Error(where, verb, bucket, key, err);
  });

/** The PUT input of a JSON object no cache may keep: the state, the lock, the publish manifest. */
export const noStoreJson = (Bucket: string, Key: string, Body: string | Uint8Array) => ({
  Bucket,
  Key,
  Body,
  ContentType: JSON_CONTENT_TYPE,
  CacheControl: NO_STORE,
});

/** ETags are opaque strings; the quotes are transport syntax and never part of a version token here. */
export const bareEtag = (etag: string | undefined): string => (etag ?? '').replace(/^W\//, '').replace(/"/g, '');

/** The object's bytes and bare ETag, or null when it does not exist; other failures are described for `where`. */
export async function getObject(
  client: S3Client,
  bucket: string,
  key: string,
  where: string,
): Promise<{ body: Uint8Array; etag: string } | null> {
  try {
    const r = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return { body: (await r.Body?.transformToByteArray()) ?? new Uint8Array(), etag: bareEtag(r.ETag) };
  } catch (err) {
    if (isNotFound(err)) return null;
    throw describeS3Error(where, 'GET', bucket, key, err);
  }
}

/** Key → bare ETag of every object under `prefix`, one request (`onRequest`) per `pageKeys` keys (default 1,000). */
export async function listObjects(
  client: S3Client,
  bucket: string,
  prefix: string,
  where: string,
  opts: { pageKeys?: number | undefined; onRequest?: () => void } = {},
): Promise<Map<string, string>> {
  const objects = new Map<string, string>();
  let token: string | undefined;
  do {
    opts.onRequest?.();
    const list = new ListObjectsV2Command({
      Bucket: bucket,
      Prefix: prefix,
      MaxKeys: opts.pageKeys,
      ContinuationToken: token,
    });
    const page = await described(where, 'LIST', bucket, prefix, () => client.send(list));
    for (const o of page.Contents ?? []) if (o.Key !== undefined) objects.set(o.Key, bareEtag(o.ETag));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return objects;
}

/**
 * radosgw compares If-Match against the bare ETag (a quoted one always fails); other servers may want the quoted
 * form. The bare form is tried first; when it fails while the object still carries that very ETag, the server
 * evidently wants quotes, which is remembered per client.
 */
const wantsQuotedIfMatch = new WeakMap<object, boolean>();

/**
 * One conditional PUT: only if the object still has ETag `expected` (quoted or not), or only if there is none
 * (`expected` null). Returns the new bare ETag. A lost condition throws ConflictError saying `conflict` when given,
 * or else returns null (another writer got there first); other failures are described for `where`.
 *
 * Its outcome is always known, though answers can mislead: radosgw answers 500 (ECANCELED) to the losers of a race,
 * and an SDK retry of a write that did land gets 412. So every write carries a random id in its metadata, and after
 * any such failure the object is looked at once: carrying our id, the write landed; carrying another ETag, another
 * writer won.
 */
export async function putIf(
  client: S3Client,
  input: PutObjectCommandInput & { Bucket: string; Key: string },
  expected: string | null,
  where: string,
  conflict?: string,
): Promise<string | null> {
  const { Bucket, Key } = input;
  const lost = (err: unknown, why: string) => {
    if (conflict === undefined) return null;
    throw new ConflictError(where, `PUT s3://${Bucket}/${Key}: ${conflict}`, {
      cause: new ConflictError('s3', why, { cause: err }),
    });
  };
  const writeId = randomUUID();
  const bare = expected === null ? null : bareEtag(expected);
  const quoted = wantsQuotedIfMatch.get(client) === true;
  const condition = bare === null ? { IfNoneMatch: '*' } : { IfMatch: quoted ? `"${bare}"` : bare };
  try {
    const put = new PutObjectCommand({ ...input, ...condition, Metadata: { ...input.Metadata, 'write-id': writeId } });
    return bareEtag((await client.send(put)).ETag);
  } catch (err) {
    const status = httpStatusOf(err);
    const ambiguous = status === null || status >= 500;
    if (!isConditionFailure(err) && !ambiguous) throw describeS3Error(where, 'PUT', Bucket, Key, err);
    const head = await client.send(new HeadObjectCommand({ Bucket, Key })).catch((headErr: unknown) => {
      if (isNotFound(headErr)) return null;
      throw describeS3Error(where, 'PUT', Bucket, Key, headErr);
    });
    const current = head && { etag: bareEtag(head.ETag), writeId: head.Metadata?.['write-id'] };
    if (current !== null && current.writeId === writeId) return current.etag;
    if (bare === null ? current !== null : current?.etag !== bare)
      return lost(
        err,
        isConditionFailure(err)
          ? 'another writer changed the object'
          : "found another writer's object after an ambiguous answer",
      );
    if (ambiguous) throw describeS3Error(where, 'PUT', Bucket, Key, err);
    if (bare === null || quoted) return lost(err, 'the condition failed');
    wantsQuotedIfMatch.set(client, true);
    return putIf(client, input, expected, where, conflict);
  }
}
