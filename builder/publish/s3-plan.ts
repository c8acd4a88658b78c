// Pure: what the S3 sink does in one publish, decided document by document as the build streams in, from the previous
// manifest and (on the ticks that list the bucket) the listing. The sink only carries it out; every rule lives and is
// tested here.
//
// The manifest is one private object: per published key, the ETag S3 returned for our PUT and a fingerprint of body +
// headers; the keys pending deletion; the listing clock. A publish reads it, and writes it back once at the end,
// conditionally (If-Match on the ETag read, If-None-Match '*' when there was none), so two publishers at once fail
// loudly. A document is unchanged when its fingerprint equals the recorded one and, on a listing tick, the listing
// still shows the recorded ETag (so objects changed or deleted behind our back are caught). Listing costs one request
// per 1,000 keys; most ticks trust the manifest and only every `listEvery`-th tick, or when the last listing is older
// than `listMaxAgeMs`, lists.
//
// A manifest that is missing or unreadable (a hand edit, an older format) is recovered from a listing: a document whose
// listed ETag is the MD5 of its body (what S3 and radosgw give a single-part PUT without KMS) is kept, everything else
// uploaded. What such a publish cannot know is lost: the keys that were pending deletion stay in the bucket, and an
// object whose body matches but whose headers a release changed keeps its old headers.
import { hash } from 'node:crypto';
import { CACHE_CONTROL, JSON_CONTENT_TYPE } from '../contract.ts';
import { DataError } from '../errors.ts';
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

/** The manifest as a publish reads it: every entry in one map, whatever its stored form. */
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

export const emptyManifest = (): Manifest => ({
  objects: new Map(),
  missingSince: {},
  listedAt: null,
  sinceListing: 0,
  recovered: false,
});

const isoOrNull = (v: unknown): string | null => (typeof v === 'string' && Number.isFinite(Date.parse(v)) ? v : null);

function clockOf(raw: {
  missingSince?: unknown;
  listedAt?: unknown;
  sinceListing?: unknown;
}): Pick<Manifest, 'missingSince' | 'listedAt' | 'sinceListing'> {
  const missingSince: Record<string, string> = {};
  if (typeof raw.missingSince === 'object' && raw.missingSince !== null) {
    for (const [k, v] of Object.entries(raw.missingSince)) if (isoOrNull(v) !== null) missingSince[k] = v as string;
  }
  const sinceListing =
    Number.isInteger(raw.sinceListing) && (raw.sinceListing as number) >= 0 ? (raw.sinceListing as number) : 0;
  return { missingSince, listedAt: isoOrNull(raw.listedAt), sinceListing };
}

/** The stored manifest, or null when it is unreadable or of another version (then it is recovered from a listing). */
export function parseManifest(text: string): Manifest | null {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (
    typeof raw !== 'object' ||
    raw === null ||
    raw.version !== MANIFEST_VERSION ||
    typeof raw.objects !== 'object' ||
    raw.objects === null
  )
    return null;
  const objects = new Map<string, ManifestEntry>();
  for (const [k, v] of Object.entries(raw.objects as Record<string, unknown>)) {
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string')
      objects.set(k, { etag: v[0], fingerprint: v[1] });
  }
  return { objects, ...clockOf(raw), recovered: false };
}

/** The manifest as stored: one JSON object, each entry as [etag, fingerprint]. */
export function serializeManifest(m: Manifest): string {
  const objects: Record<string, [string, string]> = {};
  for (const [k, v] of m.objects) objects[k] = [v.etag, v.fingerprint];
  return JSON.stringify({
    version: MANIFEST_VERSION,
    objects,
    missingSince: m.missingSince,
    listedAt: m.listedAt,
    sinceListing: m.sinceListing,
  });
}

/** The body's SHA-256 in base64, computed once per document: the fingerprint's core, and (as hex) the upload's. */
export const bodyDigest = (body: string): string => hash('sha256', body, 'base64');
export const digestHex = (digestBase64: string): string => Buffer.from(digestBase64, 'base64').toString('hex');
/** Hex MD5 of the body: what S3 reports as the ETag of a single-part PUT, compared only to recover a lost manifest. */
export const bodyMd5 = (body: string): string => hash('md5', body, 'hex');

export function headersOf(d: OutputDocument): {
  contentType: string;
  contentLanguage: string | null;
  cacheControl: string;
} {
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

export interface ListingCadence {
  /** List on every this-many-th publish (1: every publish). */
  listEvery: number;
  /** List when the last listing is at least this old. */
  listMaxAgeMs: number;
}

/** Whether this publish lists the bucket: never listed, every `listEvery`-th publish, or the last listing too old. */
export function shouldList(
  manifest: Pick<Manifest, 'listedAt' | 'sinceListing'>,
  asOf: Date,
  cadence: ListingCadence,
): boolean {
  if (manifest.listedAt === null) return true;
  if (manifest.sinceListing + 1 >= cadence.listEvery) return true;
  return asOf.getTime() - Date.parse(manifest.listedAt) >= cadence.listMaxAgeMs;
}

export interface DeletePlan {
  /** Dropped keys whose delay has passed. */
  remove: string[];
  /** Dropped keys kept for now → since when they are missing from the build. */
  pending: Record<string, string>;
  /** Keys to drop from the manifest: the removed ones and the ones the listing shows already gone. */
  forget: string[];
}

/**
 * Objects we published before and the build no longer has: remembered with the time they went missing, deleted
 * once that is older than the delay (clients and CDN caches may still follow links to them). Needs every key of
 * the build, so it runs after the whole build has streamed past.
 */
export function planDeletes(input: {
  manifest: Manifest;
  built: ReadonlySet<string>;
  /** How many of the manifest's keys the build has, when known: all of them means nothing was dropped. */
  builtOfManifest?: number;
  listing: ReadonlyMap<string, string> | null;
  asOf: Date;
  deleteAfterMs: number;
}): DeletePlan {
  const { manifest, listing, asOf } = input;
  const plan: DeletePlan = { remove: [], pending: {}, forget: [] };
  if (input.builtOfManifest === manifest.objects.size) return plan;
  for (const key of manifest.objects.keys()) {
    if (input.built.has(key)) continue;
    if (listing !== null && !listing.has(key)) {
      plan.forget.push(key); // already gone
      continue;
    }
    const since = manifest.missingSince[key] ?? asOf.toISOString();
    if (asOf.getTime() - Date.parse(since) >= input.deleteAfterMs) {
      plan.remove.push(key);
      plan.forget.push(key);
    } else {
      plan.pending[key] = since;
    }
  }
  return plan;
}

/** What a publish changes in the manifest: entries set (uploaded, or re-fingerprinted on upgrade) or dropped (null). */
export interface ManifestUpdate {
  changes: Map<string, ManifestEntry | null>;
  missingSince: Record<string, string>;
  listedAt: string | null;
  sinceListing: number;
}

/**
 * What one publish has seen so far, document by document, holding no body: every key (a second document for one
 * is refused), and the entries that change (uploads, and on upgrade the kept objects' new fingerprints).
 */
export interface PublishLedger {
  /** Refuses a key the build already had (DataError); remembers it as built. */
  admit(key: string): void;
  /**
   * Whether the object is already as wanted: its recorded fingerprint is `fingerprint`, and on a listing publish the
   * listing shows its recorded ETag. With the manifest recovered from the listing: the listed ETag is `md5()`.
   */
  keep(key: string, fingerprint: string, listing: ReadonlyMap<string, string> | null, md5: () => string): boolean;
  /** Records an upload that landed. */
  landed(key: string, entry: ManifestEntry): void;
  readonly unchanged: number;
  readonly uploaded: number;
  /** After the whole build: the deletes due, and the manifest's changes to write once they are done. */
  finish(input: {
    listing: ReadonlyMap<string, string> | null;
    listed: boolean;
    asOf: Date;
    deleteAfterMs: number;
  }): DeletePlan & { update: ManifestUpdate };
}

export function createPublishLedger(manifest: Manifest, where: string): PublishLedger {
  const built = new Set<string>();
  const changes = new Map<string, ManifestEntry | null>();
  let unchanged = 0;
  let uploaded = 0;
  // `keep` follows `admit` of the same key: one lookup serves both.
  let lastKey: string | null = null;
  let lastEntry: ManifestEntry | undefined;
  let builtOfManifest = 0;
  return {
    admit(key) {
      const before = built.size;
      built.add(key);
      if (built.size === before) throw new DataError(where, `the build has two documents for ${key}`);
      lastKey = key;
      lastEntry = manifest.objects.get(key);
      if (lastEntry !== undefined) builtOfManifest++;
    },
    keep(key, print, listing, md5) {
      if (manifest.recovered) {
        const etag = listing?.get(key);
        if (etag === undefined || etag !== md5()) return false;
        changes.set(key, { etag, fingerprint: print });
      } else {
        const seen = key === lastKey ? lastEntry : manifest.objects.get(key);
        if (seen === undefined || seen.fingerprint !== print || (listing !== null && listing.get(key) !== seen.etag))
          return false;
      }
      unchanged++;
      return true;
    },
    landed(key, entry) {
      changes.set(key, entry);
      uploaded++;
    },
    get unchanged() {
      return unchanged;
    },
    get uploaded() {
      return uploaded;
    },
    finish({ listing, listed, asOf, deleteAfterMs }) {
      const deletes = planDeletes({ manifest, built, builtOfManifest, listing, asOf, deleteAfterMs });
      for (const key of deletes.forget) changes.set(key, null);
      // A key dropped and then uploaded again is not forgotten (built keys are never in `forget`).
      const update: ManifestUpdate = {
        changes,
        missingSince: { ...deletes.pending },
        listedAt: listed ? asOf.toISOString() : manifest.listedAt,
        sinceListing: listed ? 0 : manifest.sinceListing + 1,
      };
      return { ...deletes, update };
    },
  };
}

/** Applies a publish's changes to the manifest's entries, in place, and returns the manifest after the publish. */
export function applyUpdate(manifest: Manifest, update: ManifestUpdate): Manifest {
  for (const [k, v] of update.changes) {
    if (v === null) manifest.objects.delete(k);
    else manifest.objects.set(k, v);
  }
  return {
    objects: manifest.objects,
    missingSince: update.missingSince,
    listedAt: update.listedAt,
    sinceListing: update.sinceListing,
    recovered: false,
  };
}
