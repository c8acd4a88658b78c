// Pure: what the S3 sink does in one publish, decided document by document as the build streams in, from the previous
// manifest and (on the ticks that list the bucket) the listing. The sink only carries it out; every rule lives and is
// tested here.
//
// The manifest records, per published key, the ETag S3 returned for our PUT and a fingerprint of body + headers. A
// document is unchanged when its fingerprint equals the recorded one and, on a listing tick, the listing still shows
// the recorded ETag (so objects changed or deleted behind our back are caught). Listing costs one request per 1000
// objects, so most ticks trust the manifest and only every `listEvery`-th tick, or when the last listing is older
// than `listMaxAgeMs`, lists: an idle tick then costs the manifest GET and PUT plus the uploads of what changed.
import { hash } from 'node:crypto';
import { CACHE_CONTROL, JSON_CONTENT_TYPE } from '../contract.ts';
import { DataError } from '../errors.ts';
import type { OutputDocument } from '../render/output.ts';

export const MANIFEST_VERSION = 1;

export interface ManifestEntry {
  etag: string;
  fingerprint: string;
}

export interface Manifest {
  version: typeof MANIFEST_VERSION;
  /** Relative key → what we last uploaded there. */
  objects: Record<string, ManifestEntry>;
  /** Relative key → ISO time a publish first found it missing from the build. */
  missingSince: Record<string, string>;
  /** When a publish last compared the manifest with a listing of the bucket; null: never. */
  listedAt: string | null;
  /** Publishes since that listing (0 on the listing publish itself). */
  sinceListing: number;
}

export const emptyManifest = (): Manifest => ({ version: MANIFEST_VERSION, objects: {}, missingSince: {}, listedAt: null, sinceListing: 0 });

/** The manifest, or null when it is unreadable (which only costs a full re-upload). */
export function parseManifest(text: string): Manifest | null {
  try {
    const raw = JSON.parse(text) as Partial<Manifest>;
    if (raw.version !== MANIFEST_VERSION || typeof raw.objects !== 'object' || raw.objects === null) return null;
    const objects: Record<string, ManifestEntry> = {};
    for (const [k, v] of Object.entries(raw.objects)) {
      if (typeof v?.etag === 'string' && typeof v.fingerprint === 'string') objects[k] = { etag: v.etag, fingerprint: v.fingerprint };
    }
    const missingSince: Record<string, string> = {};
    for (const [k, v] of Object.entries(raw.missingSince ?? {})) {
      if (typeof v === 'string' && Number.isFinite(Date.parse(v))) missingSince[k] = v;
    }
    const listedAt = typeof raw.listedAt === 'string' && Number.isFinite(Date.parse(raw.listedAt)) ? raw.listedAt : null;
    const sinceListing = Number.isInteger(raw.sinceListing) && (raw.sinceListing as number) >= 0 ? (raw.sinceListing as number) : 0;
    return { version: MANIFEST_VERSION, objects, missingSince, listedAt, sinceListing };
  } catch {
    return null;
  }
}

/** Hex SHA-256 of a string's UTF-8 bytes: one native call, no hash object per document. */
export const sha256 = (s: string): string => hash('sha256', s, 'hex');

export function headersOf(d: OutputDocument): { contentType: string; contentLanguage: string | null; cacheControl: string } {
  return { contentType: d.contentType || JSON_CONTENT_TYPE, contentLanguage: d.contentLanguage, cacheControl: d.cacheControl || CACHE_CONTROL };
}

/** Body and headers in one value, from the body's SHA-256, which the publish computes once per document and reuses. */
export function fingerprint(bodySha256: string, d: OutputDocument): string {
  const h = headersOf(d);
  return sha256(JSON.stringify([bodySha256, h.contentType, h.contentLanguage, h.cacheControl]));
}

export interface ListingCadence {
  /** List on every this-many-th publish (1: every publish). */
  listEvery: number;
  /** List when the last listing is at least this old. */
  listMaxAgeMs: number;
}

/** Whether this publish lists the bucket: never listed, every `listEvery`-th publish, or the last listing too old. */
export function shouldList(manifest: Manifest, asOf: Date, cadence: ListingCadence): boolean {
  if (manifest.listedAt === null) return true;
  if (manifest.sinceListing + 1 >= cadence.listEvery) return true;
  return asOf.getTime() - Date.parse(manifest.listedAt) >= cadence.listMaxAgeMs;
}

/** The manifest entry of an object already as the build wants it, or null when the document must be uploaded. */
export function entryInPlace(key: string, fingerprint: string, manifest: Manifest, listing: ReadonlyMap<string, string> | null): ManifestEntry | null {
  const seen = Object.hasOwn(manifest.objects, key) ? manifest.objects[key] : undefined;
  return seen !== undefined && seen.fingerprint === fingerprint && (listing === null || listing.get(key) === seen.etag) ? seen : null;
}

export interface DeletePlan {
  /** Dropped keys whose delay has passed. */
  remove: string[];
  /** Dropped keys kept for now → since when they are missing from the build. */
  pending: Record<string, string>;
  /** The manifest entries of the pending keys, carried into the next manifest. */
  carried: Record<string, ManifestEntry>;
}

/**
 * Objects we published before and the build no longer has: remembered with the time they went missing, deleted
 * once that is older than the delay (clients and CDN caches may still follow links to them). Needs every key of
 * the build, so it runs after the whole build has streamed past.
 */
export function planDeletes(input: { manifest: Manifest; built: ReadonlySet<string>; listing: ReadonlyMap<string, string> | null; asOf: Date; deleteAfterMs: number }): DeletePlan {
  const { manifest, listing, asOf } = input;
  const plan: DeletePlan = { remove: [], pending: {}, carried: {} };
  for (const [key, entry] of Object.entries(manifest.objects)) {
    if (input.built.has(key)) continue;
    if (listing !== null && !listing.has(key)) continue; // already gone: forget it
    const since = manifest.missingSince[key] ?? asOf.toISOString();
    if (asOf.getTime() - Date.parse(since) >= input.deleteAfterMs) {
      plan.remove.push(key);
    } else {
      plan.carried[key] = entry;
      plan.pending[key] = since;
    }
  }
  return plan;
}

/**
 * What one publish has seen so far, document by document, holding no body: every key (a second document for one
 * is refused), and the manifest entry of each object found in place or uploaded.
 */
export interface PublishLedger {
  /** Refuses a key the build already had (DataError); remembers it as built. */
  admit(key: string): void;
  /** Whether the object is already as wanted; if so its entry is carried into the next manifest. */
  keep(key: string, fingerprint: string, listing: ReadonlyMap<string, string> | null): boolean;
  /** Records an upload that landed. */
  landed(key: string, entry: ManifestEntry): void;
  readonly unchanged: number;
  readonly uploaded: number;
  /** After the whole build: the deletes due, and the manifest to write once they are done. */
  finish(input: { listing: ReadonlyMap<string, string> | null; listed: boolean; asOf: Date; deleteAfterMs: number }): DeletePlan & { next: Manifest };
}

export function createPublishLedger(manifest: Manifest, where: string): PublishLedger {
  const built = new Set<string>();
  const objects = new Map<string, ManifestEntry>();
  let unchanged = 0;
  return {
    admit(key) {
      if (built.has(key)) throw new DataError(where, `the build has two documents for ${key}`);
      built.add(key);
    },
    keep(key, fingerprint, listing) {
      const entry = entryInPlace(key, fingerprint, manifest, listing);
      if (entry === null) return false;
      objects.set(key, entry);
      unchanged++;
      return true;
    },
    landed(key, entry) {
      objects.set(key, entry);
    },
    get unchanged() {
      return unchanged;
    },
    get uploaded() {
      return objects.size - unchanged;
    },
    finish({ listing, listed, asOf, deleteAfterMs }) {
      const deletes = planDeletes({ manifest, built, listing, asOf, deleteAfterMs });
      return { ...deletes, next: nextManifest(manifest, { ...Object.fromEntries(objects), ...deletes.carried }, deletes.pending, listed, asOf) };
    },
  };
}

/** The manifest after a publish: what is in place (kept, uploaded, pending deletion), the listing clock. */
export function nextManifest(prev: Manifest, objects: Record<string, ManifestEntry>, pending: Record<string, string>, listed: boolean, asOf: Date): Manifest {
  return {
    version: MANIFEST_VERSION,
    objects,
    missingSince: { ...pending },
    listedAt: listed ? asOf.toISOString() : prev.listedAt,
    sinceListing: listed ? 0 : prev.sinceListing + 1,
  };
}
