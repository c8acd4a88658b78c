// Sink into an S3 bucket: carries out the plan of s3-plan.ts phase by phase (docs/s3.md has the costs). Per publish:
// one GET of the manifest, the PUTs of changed objects (each with its body's SHA-256 as `x-amz-meta-sha256`, for
// audits with a HEAD), the DELETEs that are due, one conditional PUT of the manifest, and on a listing publish one
// LIST per 1,000 keys. At most `windowDocs` bodies are held at once. A refused key or a failed request stops the
// publish with no deletes and no manifest PUT: the previous manifest stays, and the next publish re-uploads whatever
// differs from it.
import { DeleteObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import pLimit from 'p-limit';
import { JSON_CONTENT_TYPE, NO_STORE } from '../contract.ts';
import { ConfigError, DataError } from '../errors.ts';
import { assertSafeKey } from '../fsutil/safe-key.ts';
import type { OutputDocument } from '../render/output.ts';
import { bareEtag, described, getObject, listObjects, putIf } from '../s3/client.ts';
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
import { emptyReport, type DocumentStream, type PublishOptions, type PublishReport, type Sink } from './sink.ts';
import { consumeInPhases, STREAM_WINDOW_DOCS } from './stream.ts';

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
  /** Keys per listing page; default 1000 (the S3 maximum). Smaller only to test the paging. */
  listPageKeys?: number;
  /** Documents held at once (STREAM_WINDOW_DOCS); smaller only to test the bound. */
  windowDocs?: number;
}

type SinkIo = Required<Omit<S3SinkOptions, 'listPageKeys' | 'windowDocs'>> & Pick<S3SinkOptions, 'listPageKeys'>;

export function createS3Sink(opts: S3SinkOptions): Sink {
  const prefix = opts.prefix ?? '';
  if (prefix !== '' && !prefix.endsWith('/'))
    throw new ConfigError(WHERE, `prefix must be empty or end in '/', got ${JSON.stringify(prefix)}`);
  if (prefix !== '') assertSafeKey(prefix.slice(0, -1), WHERE);
  const manifestKey = opts.manifestKey ?? DEFAULT_MANIFEST_KEY;
  assertPrivateKey(manifestKey, prefix, WHERE);
  const io: SinkIo = {
    ...opts,
    prefix,
    manifestKey,
    deleteAfterMs: opts.deleteAfterMs ?? DELETE_AFTER_MS,
    concurrency: opts.concurrency ?? DEFAULT_CONCURRENCY,
    listEvery: opts.listEvery ?? DEFAULT_LIST_EVERY,
    listMaxAgeMs: opts.listMaxAgeMs ?? DEFAULT_LIST_MAX_AGE_MS,
  };
  const windowDocs = opts.windowDocs ?? STREAM_WINDOW_DOCS;
  return {
    name: `s3://${opts.bucket}/${prefix}`,
    publish: (docs, publishOpts = {}) => publish(io, windowDocs, docs, publishOpts),
  };
}

async function publish(
  io: SinkIo,
  windowDocs: number,
  docs: DocumentStream,
  opts: PublishOptions,
): Promise<PublishReport> {
  const asOf = io.now();
  const report = emptyReport(`s3://${io.bucket}/${io.prefix}`);
  const count = () => report.requests++;
  count();
  const stored = await getObject(io.client, io.bucket, io.manifestKey, WHERE);
  const manifest = (stored && parseManifest(Buffer.from(stored.body).toString('utf8'))) ?? {
    ...emptyManifest(),
    recovered: true,
  };
  // The listing confirms what the manifest names (objects changed or deleted behind our back), so it covers the
  // first path segments of the manifest's keys; standing in for a lost manifest, it covers the whole prefix. It runs
  // while the build streams in, and the first comparison waits for it.
  const listed = manifest.recovered || shouldList(manifest, asOf, io);
  const roots = manifest.recovered ? [''] : new Set([...manifest.objects.keys()].map((k) => k.replace(/\/.*/, '/')));
  const listing = listed ? listRelative(io, [...roots].sort(), count) : Promise.resolve(null);
  listing.catch(() => {}); // awaited below (by the first comparison or the deletes): no unhandled rejection meanwhile
  /** beforePhase of each phase, asked once, before its first upload: a phase with nothing to upload costs no fence. */
  const gates = new Map<number, Promise<void>>();
  const gate = (phase: number) => {
    if (!gates.has(phase)) gates.set(phase, (async () => opts.beforePhase?.(`phase ${phase}`))());
    return gates.get(phase);
  };
  const ledger = createPublishLedger(manifest, WHERE);
  const manifestDocKey = io.manifestKey.startsWith(io.prefix) ? io.manifestKey.slice(io.prefix.length) : null;
  try {
    await consumeInPhases(
      docs,
      WHERE,
      { windowDocs, concurrency: io.concurrency },
      {
        accept: (d) => {
          assertSafeKey(d.key, WHERE);
          if (d.key === manifestDocKey)
            throw new DataError(WHERE, `a document would overwrite the manifest ${io.manifestKey}`);
          ledger.admit(d.key);
        },
        write: async (d) => {
          // One SHA-256 of the body: the fingerprint and the object's metadata.
          const digest = bodyDigest(d.body);
          const print = fingerprint(digest, d);
          if (ledger.keep(d.key, print, await listing, () => bodyMd5(d.body))) return;
          await gate(d.phase);
          ledger.landed(d.key, { etag: await putDocument(io, d, digest, count), fingerprint: print });
        },
      },
    );
  } catch (err) {
    // A failed publish writes no manifest, and leaves no listing request behind it.
    await listing.catch(() => {});
    throw err;
  }
  const deleteAfterMs = io.deleteAfterMs;
  const { remove, pending, next } = ledger.finish({ listing: await listing, listed, asOf, deleteAfterMs });
  report.written = ledger.uploaded;
  report.unchanged = ledger.unchanged;
  report.pendingDelete = Object.keys(pending).length;
  await opts.beforePhase?.('deletes');
  // Deleting before the manifest is written: an interrupted run leaves the deleted keys in the old manifest,
  // and the next listing run, not finding them, forgets them. The other order could orphan objects.
  const limit = pLimit(io.concurrency);
  await Promise.all(remove.map((key) => limit(() => deleteObject(io, key, count))));
  report.deleted = remove.length;
  await writeManifest(io, serializeManifest(next), stored?.etag ?? null, count);
  return report;
}

/** Key (relative to the prefix) → ETag of every object under the prefix's `roots`. */
async function listRelative(io: SinkIo, roots: readonly string[], count: () => void): Promise<Map<string, string>> {
  const relative = new Map<string, string>();
  for (const root of roots) {
    const opts = { onRequest: count, ...(io.listPageKeys ? { pageKeys: io.listPageKeys } : {}) };
    for (const [k, etag] of await listObjects(io.client, io.bucket, io.prefix + root, WHERE, opts))
      relative.set(k.slice(io.prefix.length), etag);
  }
  return relative;
}

/** PUTs one document; returns the new ETag. */
async function putDocument(io: SinkIo, doc: OutputDocument, digest: string, count: () => void): Promise<string> {
  const key = io.prefix + doc.key;
  const h = headersOf(doc);
  const put = new PutObjectCommand({
    Bucket: io.bucket,
    Key: key,
    Body: doc.body,
    ContentType: h.contentType,
    CacheControl: h.cacheControl,
    ...(h.contentLanguage !== null ? { ContentLanguage: h.contentLanguage } : {}),
    Metadata: { sha256: Buffer.from(digest, 'base64').toString('hex') },
  });
  count();
  return bareEtag((await described(WHERE, 'PUT', io.bucket, key, () => io.client.send(put))).ETag);
}

function deleteObject(io: SinkIo, key: string, count: () => void) {
  count();
  const del = new DeleteObjectCommand({ Bucket: io.bucket, Key: io.prefix + key });
  return described(WHERE, 'DELETE', io.bucket, io.prefix + key, () => io.client.send(del));
}

/** The manifest, conditional on the one this publish read: two publishers at once must not silently overwrite each other. */
async function writeManifest(io: SinkIo, body: string, expectedEtag: string | null, count: () => void) {
  count();
  const input = { Bucket: io.bucket, Key: io.manifestKey, Body: body, ContentType: JSON_CONTENT_TYPE };
  const conflict = 'another publisher changed the manifest during this run (hold the run lock while publishing)';
  await putIf(io.client, { ...input, CacheControl: NO_STORE }, expectedEtag, WHERE, conflict);
}
