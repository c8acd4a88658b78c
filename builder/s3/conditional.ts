// Reads and conditional writes whose outcome is always known, shared by the state store, the sink and the backups.
import { randomUUID } from 'node:crypto';
import {
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  type PutObjectCommandInput,
  type S3Client,
} from '@aws-sdk/client-s3';
import { ConflictError } from '../errors.ts';
import { httpStatusOf, isConditionFailure, isNotFound } from './errors.ts';

/** ETags are opaque strings; the quotes are transport syntax and never part of a version token here. */
export const bareEtag = (etag: string | undefined): string => (etag ?? '').replace(/^W\//, '').replace(/"/g, '');

/** The metadata key that tags each conditional write, so its outcome can be told after an ambiguous answer. */
const WRITE_ID_META = 'write-id';

type PutInput = PutObjectCommandInput & { Bucket: string; Key: string };

function lost(input: PutInput, cause: unknown, why: string): ConflictError {
  return new ConflictError('s3', `PUT s3://${input.Bucket}/${input.Key}: ${why}`, { cause });
}

async function headOrNull(
  client: S3Client,
  bucket: string,
  key: string,
): Promise<{ etag: string; writeId: string | null } | null> {
  try {
    const h = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return { etag: bareEtag(h.ETag), writeId: h.Metadata?.[WRITE_ID_META] ?? null };
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}

/**
 * radosgw compares If-Match against the bare ETag (a quoted one always fails); other servers may want the quoted
 * form. The bare form is tried first; when it fails while the object still carries that very ETag, the server
 * evidently wants quotes, which is remembered per client.
 */
const wantsQuotedIfMatch = new WeakMap<object, boolean>();

/**
 * One conditional PUT whose outcome is always known. Answers can mislead: radosgw answers 500 (ECANCELED) to the
 * losers of a race, and an SDK retry of a write that did land gets 412. So after any failure the object is
 * looked at once: carrying our write id, the write landed; carrying another ETag, another writer won
 * (ConflictError). Other failures are rethrown as the SDK gave them, for the caller to describe.
 */
async function conditionalPut(client: S3Client, input: PutInput, expected: string | null): Promise<string> {
  const writeId = randomUUID();
  const send = async (ifMatch: string | null) => {
    const condition = ifMatch === null ? { IfNoneMatch: '*' } : { IfMatch: ifMatch };
    const r = await client.send(
      new PutObjectCommand({ ...input, ...condition, Metadata: { ...input.Metadata, [WRITE_ID_META]: writeId } }),
    );
    return bareEtag(r.ETag);
  };
  const bare = expected === null ? null : bareEtag(expected);
  const quoted = wantsQuotedIfMatch.get(client) === true;
  try {
    return await send(bare === null ? null : quoted ? `"${bare}"` : bare);
  } catch (err) {
    const status = httpStatusOf(err);
    const ambiguous = status === null || status >= 500;
    if (!isConditionFailure(err) && !ambiguous) throw err;
    const current = await headOrNull(client, input.Bucket, input.Key);
    if (current !== null && current.writeId === writeId) return current.etag;
    const unchanged = bare === null ? current === null : current !== null && current.etag === bare;
    if (!unchanged)
      throw lost(
        input,
        err,
        isConditionFailure(err)
          ? 'another writer changed the object'
          : "found another writer's object after an ambiguous answer",
      );
    if (ambiguous) throw err;
    if (bare === null || quoted) throw lost(input, err, 'the condition failed');
    wantsQuotedIfMatch.set(client, true);
    return await conditionalPut(client, input, expected);
  }
}

/** PUT only if the object still has ETag `etag` (quoted or not); a lost race throws ConflictError. */
export function putIfMatch(client: S3Client, input: PutInput, etag: string): Promise<string> {
  return conditionalPut(client, input, etag);
}

/** PUT only if no object exists at the key; a lost race throws ConflictError. */
export function putIfAbsent(client: S3Client, input: PutInput): Promise<string> {
  return conditionalPut(client, input, null);
}

/** The object's bytes and bare ETag, or null when it does not exist. */
export async function getObjectBytes(
  client: S3Client,
  bucket: string,
  key: string,
): Promise<{ body: Uint8Array; etag: string } | null> {
  try {
    const r = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    if (!r.Body) return { body: new Uint8Array(), etag: bareEtag(r.ETag) };
    return { body: await r.Body.transformToByteArray(), etag: bareEtag(r.ETag) };
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}
