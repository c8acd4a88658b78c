// Sink into an S3 bucket: carries out the plan of s3-plan.ts (what to upload, keep, delete; when to list), phase
// by phase, and removes dropped objects only after a delay.
//
// Cost per publish: one GET of the manifest, the PUTs of changed objects, the DELETEs that are due, one conditional
// PUT of the manifest; on a listing publish (every `listEvery`-th, or when the last listing is older than
// `listMaxAgeMs`) also one LIST per 1000 objects, run in parallel. The body's SHA-256 also goes into the object's
// metadata (`x-amz-meta-sha256`) so anyone can audit an object with a HEAD.
import { DeleteObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import pLimit, { type LimitFunction } from 'p-limit';
import { JSON_CONTENT_TYPE, NO_STORE } from '../contract.ts';
import { ConfigError, ConflictError, DataError } from '../errors.ts';
import { assertSafeKey } from '../fsutil/safe-key.ts';
import type { OutputDocument } from '../render/output.ts';
import { bareEtag, getObjectBytes, putIfAbsent, putIfMatch } from '../s3/conditional.ts';
import { DEFAULT_CONCURRENCY, DEFAULT_LIST_EVERY, DEFAULT_LIST_MAX_AGE_MS, DEFAULT_MANIFEST_KEY, DELETE_AFTER_MS, assertPrivateKey } from '../s3/config.ts';
import { describeS3Error, isConditionFailure } from '../s3/errors.ts';
import { listRanges } from './s3-list.ts';
import {
  emptyManifest,
  fingerprint,
  headersOf,
  nextManifest,
  parseManifest,
  planPublish,
  sha256,
  shouldList,
  type DesiredDocument,
  type Manifest,
  type PublishPlan,
} from './s3-plan.ts';
import type { PublishOptions, PublishReport, Sink } from './sink.ts';

const WHERE = 'publish/s3';

export interface S3SinkOptions {
  client: S3Client;
  bucket: string;
  /** Public API prefix, '' or ending in '/'. Document keys are relative to it. */
  prefix?: string;
  /** Private key of the publish manifest; must lie outside the public prefix. */
  manifestKey?: string;
  deleteAfterMs?: number;
  concurrency?: number;
  /** List the bucket on every this-many-th publish (1: every publish); default DEFAULT_LIST_EVERY. */
  listEvery?: number;
  /** ... and whenever the last listing is at least this old; default DEFAULT_LIST_MAX_AGE_MS. */
  listMaxAgeMs?: number;
  /** The clock; read once per publish. */
  now: () => Date;
  /** Keys per listing page and range; default 1000 (the S3 maximum). Smaller only to test the range listing. */
  listPageKeys?: number;
}

/**
 * A PutObject whose payload hash (SigV4's `x-amz-content-sha256`) is the one already computed: the SDK's signer
 * takes the header when it is there and hashes the whole body again when it is not, which for the large history
 * documents was a pass over every uploaded byte.
 */
function putWithPayloadHash(input: ConstructorParameters<typeof PutObjectCommand>[0], bodySha256: string): PutObjectCommand {
  const command = new PutObjectCommand(input);
  command.middlewareStack.add(
    (next) => (args) => {
      const request = args.request as { headers?: Record<string, string> };
      // A header already there (a streaming or trailer-checksum upload) is the SDK's own choice and stays.
      if (request.headers && request.headers['x-amz-content-sha256'] === undefined) request.headers['x-amz-content-sha256'] = bodySha256;
      return next(args);
    },
    { step: 'build', name: 'knownPayloadSha256' },
  );
  return command;
}

/** Checks every key before anything is sent, so a bad build cannot leave half of itself behind. */
function desiredDocuments(docs: readonly OutputDocument[], prefix: string, manifestKey: string): DesiredDocument[] {
  const seen = new Set<string>();
  const desired: DesiredDocument[] = [];
  for (const d of docs) {
    assertSafeKey(d.key, WHERE);
    if (seen.has(d.key)) throw new DataError(WHERE, `the build has two documents for ${d.key}`);
    if (manifestKey.startsWith(prefix) && d.key === manifestKey.slice(prefix.length)) throw new DataError(WHERE, `a document would overwrite the manifest ${manifestKey}`);
    seen.add(d.key);
    const bodySha256 = sha256(d.body);
    desired.push({ doc: d, bodySha256, fingerprint: fingerprint(bodySha256, d) });
  }
  return desired;
}

export function createS3Sink(opts: S3SinkOptions): Sink {
  const { client, bucket, now } = opts;
  const prefix = opts.prefix ?? '';
  if (prefix !== '' && !prefix.endsWith('/')) throw new ConfigError(WHERE, `prefix must be empty or end in '/', got ${JSON.stringify(prefix)}`);
  if (prefix !== '') assertSafeKey(prefix.slice(0, -1), WHERE);
  const manifestKey = opts.manifestKey ?? DEFAULT_MANIFEST_KEY;
  assertPrivateKey(manifestKey, prefix, WHERE);
  const deleteAfterMs = opts.deleteAfterMs ?? DELETE_AFTER_MS;
  const cadence = { listEvery: opts.listEvery ?? DEFAULT_LIST_EVERY, listMaxAgeMs: opts.listMaxAgeMs ?? DEFAULT_LIST_MAX_AGE_MS };
  const limit = pLimit(opts.concurrency ?? DEFAULT_CONCURRENCY);
  const name = `s3://${bucket}/${prefix}`;
  const io: SinkIo = { client, bucket, prefix, limit };

  return {
    name,
    async publish(docs: readonly OutputDocument[], publishOpts: PublishOptions = {}): Promise<PublishReport> {
      const asOf = now();
      const steps: Record<string, number> = {};
      const report: PublishReport = { target: name, written: 0, unchanged: 0, deleted: 0, pendingDelete: 0, requests: 0, steps };
      const count = () => report.requests++;
      let mark = performance.now();
      const step = (label: string) => {
        const t = performance.now();
        steps[label] = t - mark;
        mark = t;
      };
      const desired = desiredDocuments(docs, prefix, manifestKey);

      count();
      const stored = await getManifest(io, manifestKey);
      const manifest = (stored && parseManifest(Buffer.from(stored.body).toString('utf8'))) ?? emptyManifest();
      step('manifest');

      const listed = shouldList(manifest, asOf, cadence);
      const listing = listed ? await listRelative(io, [...desired.map((d) => d.doc.key), ...Object.keys(manifest.objects)], count, opts.listPageKeys) : null;
      step('list');

      const plan = planPublish({ desired, manifest, listing, asOf, deleteAfterMs });
      report.unchanged = plan.unchanged.length;
      report.pendingDelete = Object.keys(plan.pending).length;
      step('compare');

      const uploaded = await uploadInPhases(io, plan, count, publishOpts);
      report.written = Object.keys(uploaded).length;
      step('upload');

      await publishOpts.beforePhase?.('deletes');
      report.deleted = await removeDue(io, plan.remove, count);
      step('delete');
      // Deleting before the manifest is written: an interrupted run leaves the deleted keys in the old manifest,
      // and the next listing run, not finding them, forgets them. The other order could orphan objects.
      count();
      await putManifest(io, manifestKey, nextManifest(manifest, plan, uploaded, listed, asOf), stored?.etag ?? null);
      step('manifest_put');
      return report;
    },
  };
}

interface SinkIo {
  client: S3Client;
  bucket: string;
  prefix: string;
  limit: LimitFunction;
}

async function getManifest(io: SinkIo, manifestKey: string): Promise<{ body: Uint8Array; etag: string } | null> {
  try {
    return await getObjectBytes(io.client, io.bucket, manifestKey);
  } catch (err) {
    throw describeS3Error(WHERE, 'GET', io.bucket, manifestKey, err);
  }
}

/** The listing with keys relative to the prefix. */
async function listRelative(io: SinkIo, keys: string[], count: () => void, pageKeys: number | undefined): Promise<Map<string, string>> {
  let full: Map<string, string>;
  try {
    full = await listRanges(io.client, io.bucket, io.prefix, keys, io.limit, count, pageKeys);
  } catch (err) {
    throw describeS3Error(WHERE, 'LIST', io.bucket, (err as { listPrefix?: string }).listPrefix ?? io.prefix, err);
  }
  const relative = new Map<string, string>();
  for (const [k, etag] of full) if (k.startsWith(io.prefix)) relative.set(k.slice(io.prefix.length), etag);
  return relative;
}

/**
 * Every object of a lower phase is in place before any of a higher phase is written, so a summary never points at
 * an event file that is not there yet. After the first failure nothing new is started. Returns key → new ETag.
 */
async function uploadInPhases(io: SinkIo, plan: PublishPlan, count: () => void, publishOpts: PublishOptions): Promise<Record<string, string>> {
  const uploaded: Record<string, string> = {};
  let failure: unknown = null;
  const phases = [...new Set(plan.upload.map((u) => u.doc.phase))];
  for (const phase of phases) {
    const batch = plan.upload.filter((u) => u.doc.phase === phase);
    await publishOpts.beforePhase?.(`phase ${phase}`);
    await Promise.allSettled(
      batch.map(({ doc, bodySha256 }) =>
        io.limit(async () => {
          if (failure !== null) return;
          const key = io.prefix + doc.key;
          const h = headersOf(doc);
          count();
          try {
            const input = {
              Bucket: io.bucket,
              Key: key,
              // Bytes, encoded once: a string body is encoded again for its length and for the socket.
              Body: Buffer.from(doc.body, 'utf8'),
              ContentType: h.contentType,
              CacheControl: h.cacheControl,
              ...(h.contentLanguage !== null ? { ContentLanguage: h.contentLanguage } : {}),
              Metadata: { sha256: bodySha256 },
            };
            const r = await io.client.send(putWithPayloadHash(input, bodySha256));
            uploaded[doc.key] = bareEtag(r.ETag);
          } catch (err) {
            failure ??= describeS3Error(WHERE, 'PUT', io.bucket, key, err);
          }
        }),
      ),
    );
    if (failure !== null) throw failure;
  }
  return uploaded;
}

async function removeDue(io: SinkIo, keys: readonly string[], count: () => void): Promise<number> {
  let deleted = 0;
  await Promise.all(
    keys.map((key) =>
      io.limit(async () => {
        count();
        try {
          await io.client.send(new DeleteObjectCommand({ Bucket: io.bucket, Key: io.prefix + key }));
        } catch (err) {
          throw describeS3Error(WHERE, 'DELETE', io.bucket, io.prefix + key, err);
        }
        deleted++;
      }),
    ),
  );
  return deleted;
}

/** Conditional on the manifest this publish read: two publishers at once must not silently overwrite each other. */
async function putManifest(io: SinkIo, manifestKey: string, next: Manifest, expectedEtag: string | null): Promise<void> {
  const input = { Bucket: io.bucket, Key: manifestKey, Body: JSON.stringify(next), ContentType: JSON_CONTENT_TYPE, CacheControl: NO_STORE };
  try {
    if (expectedEtag === null) await putIfAbsent(io.client, input);
    else await putIfMatch(io.client, input, expectedEtag);
  } catch (err) {
    if (isConditionFailure(err)) {
      throw new ConflictError(WHERE, `PUT s3://${io.bucket}/${manifestKey}: another publisher changed the manifest during this run (hold the run lock while publishing)`, { cause: err });
    }
    throw describeS3Error(WHERE, 'PUT', io.bucket, manifestKey, err);
  }
}
