// Sink into an S3 bucket: uploads only what changed, phase by phase, and removes dropped objects only after a delay.
//
// Change detection without downloading bodies: a small manifest object outside the public prefix records, per
// published key, the ETag S3 returned for our PUT and a SHA-256 fingerprint of body + headers. A document is
// unchanged when its fingerprint equals the recorded one AND a ListObjectsV2 of the bucket still shows the
// recorded ETag for the key. The listing catches objects changed or deleted behind our back; the fingerprint
// catches header-only changes (which an MD5 ETag would miss) and works whatever the ETag is (SSE-KMS and
// multipart ETags are not MD5s). Cost per publish: one GET of the manifest, one LIST per 1000 objects (run in
// parallel), the PUTs of changed objects, one conditional PUT of the manifest. The body's SHA-256 also goes into the object's
// metadata (`x-amz-meta-sha256`) so anyone can audit an object with a HEAD.
import { hash } from 'node:crypto';
import { DeleteObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import pLimit, { type LimitFunction } from 'p-limit';
import { assertSafeKey } from './local-sink.ts';
import {
  DEFAULT_CONCURRENCY,
  DEFAULT_MANIFEST_KEY,
  DELETE_AFTER_MS,
  assertPrivateKey,
  bareEtag,
  describeS3Error,
  getObjectBytes,
  isConditionFailure,
  putIfAbsent,
  putIfMatch,
} from './s3-config.ts';
import type { OutputDocument, PublishReport, Sink } from './sink.ts';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
export const CACHE_CONTROL = 'public, max-age=30';
const MANIFEST_VERSION = 1;

export interface S3SinkOptions {
  client: S3Client;
  bucket: string;
  /** Public API prefix, '' or ending in '/'. Document keys are relative to it. */
  prefix?: string;
  /** Private key of the publish manifest; must lie outside the public prefix. */
  manifestKey?: string;
  deleteAfterMs?: number;
  concurrency?: number;
  /** The clock; read once per publish. */
  now?: () => Date;
  /** Keys per listing page and range; default 1000 (the S3 maximum). Smaller only to test the range listing. */
  listPageKeys?: number;
}

interface ManifestEntry {
  etag: string;
  fingerprint: string;
}

interface Manifest {
  version: typeof MANIFEST_VERSION;
  /** Relative key → what we last uploaded there. */
  objects: Record<string, ManifestEntry>;
  /** Relative key → ISO time a publish first found it missing from the build. */
  missingSince: Record<string, string>;
}

const emptyManifest = (): Manifest => ({ version: MANIFEST_VERSION, objects: {}, missingSince: {} });

function parseManifest(bytes: Uint8Array): Manifest | null {
  try {
    const raw = JSON.parse(Buffer.from(bytes).toString('utf8')) as Partial<Manifest>;
    if (raw.version !== MANIFEST_VERSION || typeof raw.objects !== 'object' || raw.objects === null) return null;
    const objects: Record<string, ManifestEntry> = {};
    for (const [k, v] of Object.entries(raw.objects)) {
      if (typeof v?.etag === 'string' && typeof v.fingerprint === 'string') objects[k] = { etag: v.etag, fingerprint: v.fingerprint };
    }
    const missingSince: Record<string, string> = {};
    for (const [k, v] of Object.entries(raw.missingSince ?? {})) {
      if (typeof v === 'string' && Number.isFinite(Date.parse(v))) missingSince[k] = v;
    }
    return { version: MANIFEST_VERSION, objects, missingSince };
  } catch {
    return null;
  }
}

/** Hex SHA-256 of a string's UTF-8 bytes: one native call, no hash object per document. */
const sha256 = (s: string) => hash('sha256', s, 'hex');

function headersOf(d: OutputDocument): { contentType: string; contentLanguage: string | null; cacheControl: string } {
  return { contentType: d.contentType || JSON_CONTENT_TYPE, contentLanguage: d.contentLanguage, cacheControl: d.cacheControl || CACHE_CONTROL };
}

/** Body and headers in one value, from the body's SHA-256, which the publish computes once per document and reuses. */
function fingerprint(bodySha256: string, d: OutputDocument): string {
  const h = headersOf(d);
  return sha256(JSON.stringify([bodySha256, h.contentType, h.contentLanguage, h.cacheControl]));
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

/** Keys per ListObjectsV2 page (the S3 maximum) and per listing range. */
const LIST_PAGE = 1000;

/**
 * Key → bare ETag of every object under the roots (first path segments) of `keys`, listed in parallel ranges:
 * the sorted expected keys are cut every `pageKeys` keys, and each range is listed from its start (StartAfter) and
 * paged until it passes the next range's start, so objects we never published are listed too and nothing is
 * missed. S3 lists in UTF-8 byte order; keys here are ASCII (assertSafeKey), where that is JavaScript's order.
 */
async function listRanges(
  client: S3Client,
  bucket: string,
  prefix: string,
  keys: Iterable<string>,
  limit: LimitFunction,
  onRequest: () => void,
  pageKeys = LIST_PAGE,
): Promise<Map<string, string>> {
  const byRoot = new Map<string, Set<string>>();
  for (const k of keys) {
    const slash = k.indexOf('/');
    const root = prefix + (slash === -1 ? k : k.slice(0, slash + 1));
    let set = byRoot.get(root);
    if (!set) byRoot.set(root, (set = new Set()));
    set.add(prefix + k);
  }
  const ranges: { root: string; after: string | undefined; until: string | undefined }[] = [];
  for (const [root, set] of [...byRoot].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const sorted = [...set].sort();
    const starts: (string | undefined)[] = [undefined];
    for (let i = pageKeys - 1; i < sorted.length - 1; i += pageKeys) starts.push(sorted[i]);
    starts.forEach((after, i) => ranges.push({ root, after, until: starts[i + 1] }));
  }
  const listed = new Map<string, string>();
  await Promise.all(
    ranges.map(({ root, after, until }) =>
      limit(async () => {
        let token: string | undefined;
        for (;;) {
          onRequest();
          let page;
          try {
            page = await client.send(
              new ListObjectsV2Command({ Bucket: bucket, Prefix: root, MaxKeys: pageKeys, ...(token ? { ContinuationToken: token } : after !== undefined ? { StartAfter: after } : {}) }),
            );
          } catch (err) {
            throw Object.assign(err as object, { listPrefix: root });
          }
          let passed = false;
          for (const o of page.Contents ?? []) {
            if (o.Key === undefined) continue;
            if (until !== undefined && o.Key > until) {
              passed = true; // the next range lists from here
              break;
            }
            listed.set(o.Key, bareEtag(o.ETag));
            if (o.Key === until) {
              passed = true; // this range is complete: no need to ask for a page beyond it
              break;
            }
          }
          token = page.IsTruncated && !passed ? page.NextContinuationToken : undefined;
          if (!token) return;
        }
      }),
    ),
  );
  return listed;
}

export function createS3Sink(opts: S3SinkOptions): Sink {
  const { client, bucket } = opts;
  const prefix = opts.prefix ?? '';
  if (prefix !== '' && !prefix.endsWith('/')) throw new Error(`[publish/s3] prefix must be empty or end in '/', got ${JSON.stringify(prefix)}`);
  if (prefix !== '') assertSafeKey(prefix.slice(0, -1));
  const manifestKey = opts.manifestKey ?? DEFAULT_MANIFEST_KEY;
  assertPrivateKey(manifestKey, prefix, 'publish/s3');
  const deleteAfterMs = opts.deleteAfterMs ?? DELETE_AFTER_MS;
  const limit = pLimit(opts.concurrency ?? DEFAULT_CONCURRENCY);
  const now = opts.now ?? (() => new Date());
  const name = `s3://${bucket}/${prefix}`;

  return {
    name,
    async publish(docs: readonly OutputDocument[]): Promise<PublishReport> {
      const startedAt = now();
      const steps: Record<string, number> = {};
      const report: PublishReport = { target: name, written: 0, unchanged: 0, deleted: 0, pendingDelete: 0, requests: 0, steps };
      let mark = performance.now();
      const step = (label: string) => {
        const t = performance.now();
        steps[label] = t - mark;
        mark = t;
      };
      const byKey = new Map<string, OutputDocument>();
      for (const d of docs) {
        assertSafeKey(d.key);
        if (byKey.has(d.key)) throw new Error(`[publish/s3] the build has two documents for ${d.key}`);
        byKey.set(d.key, d);
      }
      if (byKey.has(manifestKey.slice(prefix.length)) && manifestKey.startsWith(prefix)) {
        throw new Error(`[publish/s3] a document would overwrite the manifest ${manifestKey}`);
      }

      report.requests++;
      let stored: { body: Uint8Array; etag: string } | null;
      try {
        stored = await getObjectBytes(client, bucket, manifestKey);
      } catch (err) {
        throw describeS3Error('publish/s3', 'GET', bucket, manifestKey, err);
      }
      // An unreadable manifest only costs a full re-upload; dropped objects it tracked are then left in place.
      const manifest = (stored && parseManifest(stored.body)) ?? emptyManifest();
      step('manifest');

      let listed: Map<string, string>;
      try {
        listed = await listRanges(client, bucket, prefix, [...byKey.keys(), ...Object.keys(manifest.objects)], limit, () => report.requests++, opts.listPageKeys);
      } catch (err) {
        throw describeS3Error('publish/s3', 'LIST', bucket, (err as { listPrefix?: string }).listPrefix ?? prefix, err);
      }
      step('list');

      const next: Manifest = { version: MANIFEST_VERSION, objects: {}, missingSince: {} };
      const toUpload: { d: OutputDocument; bodySha256: string; fingerprint: string }[] = [];
      for (const d of byKey.values()) {
        const bodySha256 = sha256(d.body);
        const fp = fingerprint(bodySha256, d);
        const seen = manifest.objects[d.key];
        if (seen && seen.fingerprint === fp && listed.get(prefix + d.key) === seen.etag) {
          report.unchanged++;
          next.objects[d.key] = seen;
        } else {
          toUpload.push({ d, bodySha256, fingerprint: fp });
        }
      }

      step('compare');

      // Every object of a lower phase is in place before any of a higher phase is written, so a summary never
      // points at an event file that is not there yet. After the first failure nothing new is started.
      const phases = [...new Set(toUpload.map((u) => u.d.phase))].sort((a, b) => a - b);
      let failure: unknown = null;
      for (const phase of phases) {
        const batch = toUpload.filter((u) => u.d.phase === phase);
        const results = await Promise.allSettled(
          batch.map(({ d, bodySha256, fingerprint }) =>
            limit(async () => {
              if (failure !== null) return;
              const key = prefix + d.key;
              const h = headersOf(d);
              report.requests++;
              try {
                const r = await client.send(
                  putWithPayloadHash(
                    {
                      Bucket: bucket,
                      Key: key,
                      // Bytes, encoded once: a string body is encoded again for its length and for the socket.
                      Body: Buffer.from(d.body, 'utf8'),
                      ContentType: h.contentType,
                      CacheControl: h.cacheControl,
                      ...(h.contentLanguage !== null ? { ContentLanguage: h.contentLanguage } : {}),
                      Metadata: { sha256: bodySha256 },
                    },
                    bodySha256,
                  ),
                );
                next.objects[d.key] = { etag: bareEtag(r.ETag), fingerprint };
                report.written++;
              } catch (err) {
                failure ??= describeS3Error('publish/s3', 'PUT', bucket, key, err);
                throw failure;
              }
            }),
          ),
        );
        if (failure !== null || results.some((r) => r.status === 'rejected')) break;
      }
      if (failure !== null) throw failure;
      step('upload');

      // Objects we published before and the build no longer has: remembered with the time they went missing,
      // deleted once that is older than the delay (clients and CDN caches may still follow links to them).
      const toDelete: string[] = [];
      for (const key of Object.keys(manifest.objects)) {
        if (byKey.has(key)) continue;
        const since = manifest.missingSince[key] ?? startedAt.toISOString();
        if (!listed.has(prefix + key)) continue; // already gone: forget it
        if (startedAt.getTime() - Date.parse(since) >= deleteAfterMs) {
          toDelete.push(key);
        } else {
          next.objects[key] = manifest.objects[key]!;
          next.missingSince[key] = since;
          report.pendingDelete++;
        }
      }

      await Promise.all(
        toDelete.map((key) =>
          limit(async () => {
            report.requests++;
            try {
              await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: prefix + key }));
            } catch (err) {
              throw describeS3Error('publish/s3', 'DELETE', bucket, prefix + key, err);
            }
            report.deleted++;
          }),
        ),
      );
      step('delete');
      // Deleting before the manifest is written: an interrupted run leaves the deleted keys in the old manifest,
      // and the next run, not finding them in the listing, forgets them. The other order could orphan objects.
      report.requests++;
      const manifestInput = { Bucket: bucket, Key: manifestKey, Body: JSON.stringify(next), ContentType: JSON_CONTENT_TYPE, CacheControl: 'no-store' };
      try {
        if (stored === null) await putIfAbsent(client, manifestInput);
        else await putIfMatch(client, manifestInput, stored.etag);
      } catch (err) {
        if (isConditionFailure(err)) {
          throw new Error(`[publish/s3] PUT s3://${bucket}/${manifestKey}: another publisher changed the manifest during this run (hold the run lock while publishing)`);
        }
        throw describeS3Error('publish/s3', 'PUT', bucket, manifestKey, err);
      }
      step('manifest_put');

      return report;
    },
  };
}
