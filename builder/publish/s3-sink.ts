// Sink into an S3 bucket: carries out the plan of s3-plan.ts (what to upload, keep, delete; when to list), phase
// by phase, and removes dropped objects only after a delay.
//
// Cost per publish: one GET of the manifest, the PUTs of changed objects, the DELETEs that are due, one conditional
// PUT of the manifest; on a listing publish (every `listEvery`-th, when the last listing is older than
// `listMaxAgeMs`, or when the manifest is missing or unreadable) also one LIST per 1,000 keys listed. The
// body's SHA-256 also goes into the object's metadata (`x-amz-meta-sha256`) so anyone can audit an object with a HEAD.
//
// The build comes as a stream (stream.ts) and the sink holds at most `windowDocs` bodies at once: each document is
// hashed, compared with the manifest (and the listing) and uploaded if it changed, then let go; of every document only
// its key and manifest entry stay, for the deletes and the next manifest. Two consequences:
//  - A key is checked when its document arrives, not before anything is written: an unsafe key, a second document
//    for a key, or the manifest's own key stops the publish there, with that document and everything after it not
//    written, no deletes and no manifest PUT. Like any interrupted publish (a failed PUT, a lost lock), it leaves the
//    previous manifest in place, and the next publish re-uploads whatever differs from it.
//  - The listing runs while the first documents stream in (the first comparison waits for it), so the report's
//    `steps` overlap: manifest, list, stream (hash + compare + upload), delete, manifest_put.
import { DeleteObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import pLimit, { type LimitFunction } from 'p-limit';
import { JSON_CONTENT_TYPE, NO_STORE } from '../contract.ts';
import { ConfigError, ConflictError, DataError } from '../errors.ts';
import { assertSafeKey } from '../fsutil/safe-key.ts';
import type { OutputDocument } from '../render/output.ts';
import { bareEtag, getObjectBytes, putIfAbsent, putIfMatch } from '../s3/conditional.ts';
import {
  DEFAULT_CONCURRENCY,
  DEFAULT_LIST_EVERY,
  DEFAULT_LIST_MAX_AGE_MS,
  DEFAULT_MANIFEST_KEY,
  DELETE_AFTER_MS,
  assertPrivateKey,
} from '../s3/config.ts';
import { describeS3Error, isConditionFailure } from '../s3/errors.ts';
import { listPrefixes, rootsOf } from './s3-list.ts';
import {
  applyUpdate,
  bodyDigest,
  bodyMd5,
  createPublishLedger,
  digestHex,
  emptyManifest,
  fingerprint,
  headersOf,
  parseManifest,
  serializeManifest,
  shouldList,
  type Manifest,
} from './s3-plan.ts';
import type { DocumentStream, PublishOptions, PublishReport, Sink } from './sink.ts';
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

/** Runs a step of the publish, recording its wall time under its label in `steps`. */
function stepTimer(steps: Record<string, number>) {
  return async <T>(label: string, work: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    try {
      return await work();
    } finally {
      steps[label] = performance.now() - t;
    }
  };
}

/** beforePhase of each phase, asked once, before its first upload: a phase with nothing to upload costs no fence. */
function phaseGates(beforePhase: PublishOptions['beforePhase']): (phase: number) => Promise<void> {
  const gates = new Map<number, Promise<void>>();
  return (phase) => {
    let g = gates.get(phase);
    if (g === undefined) gates.set(phase, (g = (async () => beforePhase?.(`phase ${phase}`))()));
    return g;
  };
}

export function createS3Sink(opts: S3SinkOptions): Sink {
  const { client, bucket, now } = opts;
  const prefix = opts.prefix ?? '';
  if (prefix !== '' && !prefix.endsWith('/'))
    throw new ConfigError(WHERE, `prefix must be empty or end in '/', got ${JSON.stringify(prefix)}`);
  if (prefix !== '') assertSafeKey(prefix.slice(0, -1), WHERE);
  const manifestKey = opts.manifestKey ?? DEFAULT_MANIFEST_KEY;
  assertPrivateKey(manifestKey, prefix, WHERE);
  /** The document key that would land on the manifest, when it lies under the prefix at all. */
  const manifestDocKey = manifestKey.startsWith(prefix) ? manifestKey.slice(prefix.length) : null;
  const deleteAfterMs = opts.deleteAfterMs ?? DELETE_AFTER_MS;
  const cadence = {
    listEvery: opts.listEvery ?? DEFAULT_LIST_EVERY,
    listMaxAgeMs: opts.listMaxAgeMs ?? DEFAULT_LIST_MAX_AGE_MS,
  };
  const concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
  const limits = { windowDocs: opts.windowDocs ?? STREAM_WINDOW_DOCS, concurrency };
  const limit = pLimit(concurrency);
  const name = `s3://${bucket}/${prefix}`;
  const io: SinkIo = { client, bucket, prefix, limit };

  return {
    name,
    async publish(docs: DocumentStream, publishOpts: PublishOptions = {}): Promise<PublishReport> {
      const asOf = now();
      const steps: Record<string, number> = {};
      const report: PublishReport = {
        target: name,
        written: 0,
        unchanged: 0,
        deleted: 0,
        pendingDelete: 0,
        requests: 0,
        steps,
      };
      const count = () => report.requests++;
      const timed = stepTimer(steps);

      const { stored, manifest } = await timed('manifest', () => readManifest(io, manifestKey, count));

      // The listing confirms what the manifest names (objects changed or deleted behind our back), so it covers the
      // roots of the manifest's keys; standing in for a lost manifest, it covers the whole prefix. It runs while the
      // build streams in (a key the manifest lacks is uploaded anyway), and the first comparison waits for it.
      const listed = manifest.recovered || shouldList(manifest, asOf, cadence);
      const roots = manifest.recovered ? [''] : rootsOf(manifest.objects.keys());
      const listing = timed('list', async () => (listed ? listRelative(io, roots, count, opts.listPageKeys) : null));
      listing.catch(() => {}); // awaited below (by the first comparison or the deletes): no unhandled rejection meanwhile
      /** The listing once it is in (null: this publish does not list); undefined until then. */
      let listingNow: ReadonlyMap<string, string> | null | undefined;
      void listing.then(
        (l) => (listingNow = l),
        () => {},
      );
      /** Digests of the documents `settle` found changed, for their `write` (at most the window's). */
      const digests = new Map<OutputDocument, string>();

      const ledger = createPublishLedger(manifest, WHERE);
      const gate = phaseGates(publishOpts.beforePhase);
      const streamed = timed('stream', () =>
        consumeInPhases(docs, WHERE, limits, {
          accept: (d) => {
            assertSafeKey(d.key, WHERE);
            if (d.key === manifestDocKey)
              throw new DataError(WHERE, `a document would overwrite the manifest ${manifestKey}`);
            ledger.admit(d.key);
          },
          // Once the listing (if any) is in, an unchanged document is settled here: hashed, compared, let go.
          settle: (d) => {
            if (listingNow === undefined) return false;
            const digest = bodyDigest(d.body);
            if (ledger.keep(d.key, fingerprint(digest, d), listingNow, () => bodyMd5(d.body))) return true;
            digests.set(d, digest);
            return false;
          },
          write: async (d) => {
            // One SHA-256 of the body: the fingerprint and the object's metadata.
            let digest = digests.get(d);
            if (digest !== undefined) digests.delete(d);
            else {
              const computed = (digest = bodyDigest(d.body));
              if (ledger.keep(d.key, fingerprint(computed, d), await listing, () => bodyMd5(d.body))) return;
            }
            await gate(d.phase);
            ledger.landed(d.key, {
              etag: await putDocument(io, d, digestHex(digest), count),
              fingerprint: fingerprint(digest, d),
            });
          },
        }),
      );
      // A failed publish writes no manifest, and leaves no listing request behind it.
      await streamed.catch(async (err: unknown) => {
        await listing.catch(() => {});
        throw err;
      });
      const { remove, pending, update } = ledger.finish({ listing: await listing, listed, asOf, deleteAfterMs });
      report.written = ledger.uploaded;
      report.unchanged = ledger.unchanged;
      report.pendingDelete = Object.keys(pending).length;

      await publishOpts.beforePhase?.('deletes');
      report.deleted = await timed('delete', () => removeDue(io, remove, count));
      // Deleting before the manifest is written: an interrupted run leaves the deleted keys in the old manifest,
      // and the next listing run, not finding them, forgets them. The other order could orphan objects.
      const body = serializeManifest(applyUpdate(manifest, update));
      await timed('manifest_put', () => writeManifest(io, manifestKey, body, stored?.etag ?? null, count));
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

async function getBytes(io: SinkIo, key: string): Promise<{ body: Uint8Array; etag: string } | null> {
  try {
    return await getObjectBytes(io.client, io.bucket, key);
  } catch (err) {
    throw describeS3Error(WHERE, 'GET', io.bucket, key, err);
  }
}

/**
 * The manifest and the ETag of the object it came from (null: there is none). A missing or unreadable one is
 * recovered from the listing (`recovered`); the write at the end replaces it, conditional on that ETag.
 */
async function readManifest(
  io: SinkIo,
  manifestKey: string,
  count: () => void,
): Promise<{ stored: { etag: string } | null; manifest: Manifest }> {
  count();
  const stored = await getBytes(io, manifestKey);
  const manifest = stored === null ? null : parseManifest(Buffer.from(stored.body).toString('utf8'));
  return { stored, manifest: manifest ?? { ...emptyManifest(), recovered: true } };
}

/** The listing with keys relative to the prefix. */
async function listRelative(
  io: SinkIo,
  roots: readonly string[],
  count: () => void,
  pageKeys: number | undefined,
): Promise<Map<string, string>> {
  let full: Map<string, string>;
  try {
    full = await listPrefixes(
      io.client,
      io.bucket,
      roots.map((r) => io.prefix + r),
      count,
      pageKeys,
    );
  } catch (err) {
    throw describeS3Error(WHERE, 'LIST', io.bucket, (err as { listPrefix?: string }).listPrefix ?? io.prefix, err);
  }
  const relative = new Map<string, string>();
  for (const [k, etag] of full) if (k.startsWith(io.prefix)) relative.set(k.slice(io.prefix.length), etag);
  return relative;
}

/** PUTs one document; returns the new ETag. */
async function putDocument(io: SinkIo, doc: OutputDocument, bodySha256: string, count: () => void): Promise<string> {
  const key = io.prefix + doc.key;
  const h = headersOf(doc);
  count();
  try {
    const r = await io.client.send(
      new PutObjectCommand({
        Bucket: io.bucket,
        Key: key,
        Body: doc.body,
        ContentType: h.contentType,
        CacheControl: h.cacheControl,
        ...(h.contentLanguage !== null ? { ContentLanguage: h.contentLanguage } : {}),
        Metadata: { sha256: bodySha256 },
      }),
    );
    return bareEtag(r.ETag);
  } catch (err) {
    throw describeS3Error(WHERE, 'PUT', io.bucket, key, err);
  }
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

/** The manifest, conditional on the one this publish read: two publishers at once must not silently overwrite each other. */
async function writeManifest(
  io: SinkIo,
  manifestKey: string,
  body: string,
  expectedEtag: string | null,
  count: () => void,
): Promise<void> {
  count();
  const input = {
    Bucket: io.bucket,
    Key: manifestKey,
    Body: body,
    ContentType: JSON_CONTENT_TYPE,
    CacheControl: NO_STORE,
  };
  try {
    if (expectedEtag === null) await putIfAbsent(io.client, input);
    else await putIfMatch(io.client, input, expectedEtag);
  } catch (err) {
    if (isConditionFailure(err)) {
      throw new ConflictError(
        WHERE,
        `PUT s3://${io.bucket}/${manifestKey}: another publisher changed the manifest during this run (hold the run lock while publishing)`,
        { cause: err },
      );
    }
    throw describeS3Error(WHERE, 'PUT', io.bucket, manifestKey, err);
  }
}
