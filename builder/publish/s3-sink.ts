// Sink into an S3 bucket: carries out the plan of s3-plan.ts phase by phase (docs/s3.md has the costs). Per publish:
// one GET of the manifest, the PUTs of changed objects (each with its body's SHA-256 as `x-amz-meta-sha256`, for audits
// with a HEAD), the DELETEs that are due, one conditional PUT of the manifest, and on a listing publish one LIST per
// 1,000 keys. At most `windowDocs` bodies are held at once. A refused key or a failed request stops the publish with no
// deletes and no manifest PUT: the previous manifest stays, and the next publish re-uploads whatever differs from it.
import { DeleteObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import pLimit from 'p-limit';
import { ConfigError, DataError } from '../errors.ts';
import { assertSafeKey } from '../fsutil/safe-key.ts';
import { bareEtag, described, getObject, listObjects, noStoreJson, putIf } from '../s3/client.ts';
import {
  DEFAULT_CONCURRENCY,
  DEFAULT_LIST_EVERY,
  DEFAULT_LIST_MAX_AGE_MS,
  DEFAULT_MANIFEST_KEY,
  DELETE_AFTER_MS,
  assertPrivateKey,
} from '../s3/config.ts';
import {
  bodyDigest,
  bodyMd5,
  createPublishLedger,
  emptyManifest,
  fingerprint,
  headersOf,
  parseManifest,
  serializeManifest,
  shouldList,
} from './s3-plan.ts';
import type { OutputDocument } from '../render/output.ts';
import { type DocumentStream, type PublishOptions, type PublishReport, type Sink } from './sink.ts';
import { consumeInPhases } from './stream.ts';

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
  /** The clock; read once per publish. */
  now: () => Date;
  /** Keys per listing page; default 1000 (the S3 maximum). Smaller only to test the paging. */
  listPageKeys?: number;
  /** Documents held at once (STREAM_WINDOW_DOCS); smaller only to test the bound. */
  windowDocs?: number;
}

type Target = S3SinkOptions & { prefix: string; manifestKey: string };

export function createS3Sink(opts: S3SinkOptions): Sink {
  const { prefix = '', manifestKey = DEFAULT_MANIFEST_KEY } = opts;
  if (prefix !== '' && !prefix.endsWith('/'))
    throw new ConfigError(WHERE, `prefix must be empty or end in '/', got ${JSON.stringify(prefix)}`);
  if (prefix !== '') assertSafeKey(prefix.slice(0, -1), WHERE);
  assertPrivateKey(manifestKey, prefix, WHERE);
  const t: Target = { ...opts, prefix, manifestKey };
  return { name: `s3://${opts.bucket}/${prefix}`, publish: (docs, publishOpts = {}) => publish(t, docs, publishOpts) };
}

async function publish(t: Target, docs: DocumentStream, opts: PublishOptions): Promise<PublishReport> {
  const { client, bucket, prefix, manifestKey } = t;
  const asOf = t.now();
  const concurrency = t.concurrency ?? DEFAULT_CONCURRENCY;
  const target = `s3://${bucket}/${prefix}`;
  const report: PublishReport = { target, written: 0, unchanged: 0, deleted: 0, pendingDelete: 0, requests: 0 };
  const count = () => report.requests++;
  count();
  const stored = await getObject(client, bucket, manifestKey, WHERE);
  const manifest = (stored && parseManifest(stored.body)) ?? emptyManifest(true);
  // The listing confirms what the manifest names (objects changed or deleted behind our back), so it covers the
  // first path segments of the manifest's keys; standing in for a lost manifest, it covers the whole prefix. It runs
  // while the build streams in, and the first comparison waits for it.
  const roots = manifest.recovered ? [''] : new Set([...manifest.objects.keys()].map((k) => k.replace(/\/.*/, '/')));
  const cadence = { listEvery: t.listEvery ?? DEFAULT_LIST_EVERY, listMaxAgeMs: DEFAULT_LIST_MAX_AGE_MS };
  const listed = manifest.recovered || shouldList(manifest, asOf, cadence);
  const listing = listed ? listRelative(t, [...roots].sort(), count) : Promise.resolve(null);
  listing.catch(() => {}); // awaited below (by the first comparison or the deletes): no unhandled rejection meanwhile
  /** beforePhase of each phase, asked once, before its first upload: a phase with nothing to upload costs no fence. */
  const gates = new Map<number, Promise<void>>();
  const gate = (phase: number) => {
    if (!gates.has(phase)) gates.set(phase, (async () => opts.beforePhase?.(`phase ${phase}`))());
    return gates.get(phase);
  };
  const ledger = createPublishLedger(manifest);
  const manifestDocKey = manifestKey.startsWith(prefix) ? manifestKey.slice(prefix.length) : null;
  const built = await consumeInPhases(
    docs,
    WHERE,
    { windowDocs: t.windowDocs, concurrency },
    {
      accept: (d) => {
        if (d.key === manifestDocKey)
          throw new DataError(WHERE, `a document would overwrite the manifest ${manifestKey}`);
      },
      write: async (d) => {
        // One SHA-256 of the body: the fingerprint and the object's metadata.
        const digest = bodyDigest(d.body);
        const print = fingerprint(digest, d);
        if (ledger.keep(d.key, print, await listing, () => bodyMd5(d.body))) return void report.unchanged++;
        await gate(d.phase);
        ledger.landed(d.key, { etag: await putDocument(t, d, digest, count), fingerprint: print });
        report.written++;
      },
    },
  ).catch(async (err: unknown) => {
    // A failed publish writes no manifest, and leaves no listing request behind it.
    await listing.catch(() => {});
    throw err;
  });
  const deleteAfterMs = t.deleteAfterMs ?? DELETE_AFTER_MS;
  const { remove, pending, next } = ledger.finish({ built, listing: await listing, asOf, deleteAfterMs });
  report.pendingDelete = Object.keys(pending).length;
  await opts.beforePhase?.('deletes');
  // Deleting before the manifest is written: an interrupted run leaves the deleted keys in the old manifest,
  // and the next listing run, not finding them, forgets them. The other order could orphan objects.
  await pLimit(concurrency).map(remove, (key) => {
    count();
    const del = new DeleteObjectCommand({ Bucket: bucket, Key: prefix + key });
    return described(WHERE, 'DELETE', bucket, prefix + key, () => client.send(del));
  });
  report.deleted = remove.length;
  // Conditional on the manifest this publish read: two publishers at once must not silently overwrite each other.
  count();
  const conflict = 'another publisher changed the manifest during this run (hold the run lock while publishing)';
  await putIf(client, noStoreJson(bucket, manifestKey, serializeManifest(next)), stored?.etag ?? null, WHERE, conflict);
  return report;
}

/** Key (relative to the prefix) → ETag of every object under the prefix's `roots`. */
async function listRelative(t: Target, roots: readonly string[], count: () => void): Promise<Map<string, string>> {
  const relative = new Map<string, string>();
  const opts = { onRequest: count, pageKeys: t.listPageKeys };
  for (const root of roots)
    for (const [k, etag] of await listObjects(t.client, t.bucket, t.prefix + root, WHERE, opts))
      relative.set(k.slice(t.prefix.length), etag);
  return relative;
}

/** PUTs one document; returns the new ETag. */
async function putDocument(t: Target, doc: OutputDocument, digest: string, count: () => void): Promise<string> {
  const key = t.prefix + doc.key;
  const h = headersOf(doc);
  const put = new PutObjectCommand({
    Bucket: t.bucket,
    Key: key,
    Body: doc.body,
    ContentType: h.contentType,
    CacheControl: h.cacheControl,
    ...(h.contentLanguage !== null ? { ContentLanguage: h.contentLanguage } : {}),
    Metadata: { sha256: Buffer.from(digest, 'base64').toString('hex') },
  });
  count();
  return bareEtag((await described(WHERE, 'PUT', t.bucket, key, () => t.client.send(put))).ETag);
}
