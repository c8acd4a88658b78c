// Pure: what the S3 sink does in one publish, document by document, from the previous manifest (one private object:
// per published key the ETag of our PUT and a fingerprint of body + headers, the keys pending deletion, the listing
// clock) and, on the ticks that list the bucket, the listing, which catches objects changed or deleted behind our
// back. A missing or unreadable manifest is recovered from a listing: a document whose listed ETag is the MD5 of its
// body (a single-part PUT without KMS) is kept, everything else uploaded (docs/s3.md).
import { hash } from 'node:crypto';
import { z } from 'zod';
import { CACHE_CONTROL, JSON_CONTENT_TYPE } from '../contract.ts';
import { parseJsonWith } from '../fsutil/json.ts';
import type { OutputDocument } from '../render/output.ts';

const MANIFEST_VERSION = 3;
/** Characters of the body's SHA-256 (base64) kept in a fingerprint: 132 bits. */
const BODY_DIGEST_CHARS = 22;
/** Characters of the headers' SHA-256 (base64) kept in a fingerprint: 48 bits, over a handful of header sets. */
const HEADERS_DIGEST_CHARS = 8;

export interface ManifestEntry {
  etag: string;
  fingerprint: string;
}

export interface Manifest {
  /** Relative key → what we last uploaded there. */
  objects: Map<string, ManifestEntry>;
  /** Relative key → ISO time a publish first found it missing from the build. */
  missingSince: Record<string, string>;
  /** When a publish last compared the manifest with a listing of the bucket; null: never. */
  listedAt: string | null;
  /** Publishes since that listing (0 on the listing publish itself). */
  sinceListing: number;
  /** No readable manifest was found: the listing stands in for it (documents are compared by MD5 with the ETags). */
  recovered: boolean;
}

export const emptyManifest = (recovered = false): Manifest => ({
  objects: new Map(),
  missingSince: {},
  listedAt: null,
  sinceListing: 0,
  recovered,
});

const Iso = z.string().refine((v) => Number.isFinite(Date.parse(v)));
/** A record's entries that pass `value`: inside a readable manifest, what cannot be trusted is dropped. */
const trusted = <T extends z.ZodType>(value: T) =>
  z.record(z.string(), z.unknown()).transform((o) =>
    Object.entries(o).flatMap(([k, v]) => {
      const r = value.safeParse(v);
      return r.success ? [[k, r.data as z.output<T>] as const] : [];
    }),
  );
const StoredManifest = z.object({
  version: z.literal(MANIFEST_VERSION),
  objects: trusted(z.tuple([z.string(), z.string()])),
  missingSince: trusted(Iso).catch([]),
  listedAt: Iso.nullable().catch(null),
  sinceListing: z.int().min(0).catch(0),
});

/** The stored manifest, or null when it is unreadable or of another version (then it is recovered from a listing). */
export function parseManifest(text: string | Uint8Array): Manifest | null {
  const parsed = parseJsonWith(text, StoredManifest);
  if (!parsed.ok) return null;
  const { listedAt, sinceListing, ...m } = parsed.data;
  const objects = new Map(m.objects.map(([k, [etag, fingerprint]]) => [k, { etag, fingerprint }]));
  return { objects, missingSince: Object.fromEntries(m.missingSince), listedAt, sinceListing, recovered: false };
}

/** The manifest as stored: one JSON object, each entry as [etag, fingerprint]. */
export function serializeManifest({ objects, missingSince, listedAt, sinceListing }: Manifest): string {
  const entries = Object.fromEntries([...objects].map(([k, v]) => [k, [v.etag, v.fingerprint]]));
  return JSON.stringify({ version: MANIFEST_VERSION, objects: entries, missingSince, listedAt, sinceListing });
}

/** The body's SHA-256 in base64, computed once per document: the fingerprint's core, and (as hex) the upload's. */
export const bodyDigest = (body: string): string => hash('sha256', body, 'base64');
/** Hex MD5 of the body: what S3 reports as the ETag of a single-part PUT, compared only to recover a lost manifest. */
export const bodyMd5 = (body: string): string => hash('md5', body, 'hex');

export function headersOf(d: OutputDocument) {
  return {
    contentType: d.contentType || JSON_CONTENT_TYPE,
    contentLanguage: d.contentLanguage,
    cacheControl: d.cacheControl || CACHE_CONTROL,
  };
}

/** Body and headers in one value: 132 bits of the body's digest and 48 of the headers'. */
export function fingerprint(bodyDigestBase64: string, d: OutputDocument): string {
  const h = headersOf(d);
  const line = `${h.contentType}\n${h.contentLanguage ?? ''}\n${h.contentLanguage === null ? 0 : 1}\n${h.cacheControl}`;
  return bodyDigestBase64.slice(0, BODY_DIGEST_CHARS) + hash('sha256', line, 'base64').slice(0, HEADERS_DIGEST_CHARS);
}

/** Whether this publish lists the bucket: never listed, every `listEvery`-th publish, or the last listing too old. */
export function shouldList(
  manifest: Pick<Manifest, 'listedAt' | 'sinceListing'>,
  asOf: Date,
  cadence: { listEvery: number; listMaxAgeMs: number },
): boolean {
  if (manifest.listedAt === null || manifest.sinceListing + 1 >= cadence.listEvery) return true;
  return asOf.getTime() - Date.parse(manifest.listedAt) >= cadence.listMaxAgeMs;
}

/**
 * What one publish decides, document by document, holding no body: which documents are already as wanted, and the
 * next manifest's entries (uploads, and after a recovery the kept objects' fingerprints).
 */
export function createPublishLedger(manifest: Manifest) {
  const objects = new Map(manifest.objects);
  return {
    /**
     * Whether the object is already as wanted: its recorded fingerprint is `print`, and on a listing publish the
     * listing shows its recorded ETag. With the manifest recovered from the listing: the listed ETag is `md5()`.
     */
    keep(key: string, print: string, listing: ReadonlyMap<string, string> | null, md5: () => string): boolean {
      const listed = listing?.get(key);
      if (!manifest.recovered) {
        const seen = manifest.objects.get(key);
        return seen?.fingerprint === print && (listing === null || listed === seen.etag);
      }
      if (listed === undefined || listed !== md5()) return false;
      objects.set(key, { etag: listed, fingerprint: print });
      return true;
    },
    /** Records an upload that landed. */
    landed: (key: string, entry: ManifestEntry) => void objects.set(key, entry),
    /**
     * After the whole build (`built`, every key of it): the dropped keys to delete now, the ones kept for now (→ since
     * when they are missing), and the manifest to write once the deletes are done. Objects we published before and
     * the build no longer has are deleted once missing longer than the delay (clients and CDN caches may still follow
     * links).
     */
    finish(input: {
      built: ReadonlySet<string>;
      listing: ReadonlyMap<string, string> | null;
      asOf: Date;
      deleteAfterMs: number;
    }) {
      const { built, listing, asOf, deleteAfterMs } = input;
      const remove: string[] = [];
      const pending: Record<string, string> = {};
      for (const key of manifest.objects.keys()) {
        if (built.has(key)) continue;
        const since = manifest.missingSince[key] ?? asOf.toISOString();
        // Already gone (the listing says so), or due: forgotten. A key built again is never forgotten.
        if (listing !== null && !listing.has(key)) objects.delete(key);
        else if (asOf.getTime() - Date.parse(since) >= deleteAfterMs) {
          remove.push(key);
          objects.delete(key);
        } else pending[key] = since;
      }
      const listed = listing !== null;
      const next: Manifest = {
        objects,
        missingSince: { ...pending },
        listedAt: listed ? asOf.toISOString() : manifest.listedAt,
        sinceListing: listed ? 0 : manifest.sinceListing + 1,
        recovered: false,
      };
      return { remove, pending, next };
    },
  };
}
