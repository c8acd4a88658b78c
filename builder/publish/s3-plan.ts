// Pure: what the S3 sink does in one publish, decided from the desired documents, the previous manifest and (on the
// ticks that list the bucket) the listing. The sink only carries the plan out; every rule lives and is tested here.
//
// The manifest records, per published key, the ETag S3 returned for our PUT and a fingerprint of body + headers. A
// document is unchanged when its fingerprint equals the recorded one and, on a listing tick, the listing still shows
// the recorded ETag (so objects changed or deleted behind our back are caught). Listing costs one request per 1000
// objects, so most ticks trust the manifest and only every `listEvery`-th tick, or when the last listing is older
// than `listMaxAgeMs`, lists: an idle tick then costs the manifest GET and PUT plus the uploads of what changed.
import { hash } from 'node:crypto';
import { CACHE_CONTROL, JSON_CONTENT_TYPE } from '../contract.ts';
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

export interface DesiredDocument {
  doc: OutputDocument;
  bodySha256: string;
  fingerprint: string;
}

export interface PublishPlan {
  /** Documents to PUT, in phase order (a lower phase entirely before a higher one). */
  upload: DesiredDocument[];
  /** Keys whose object is already what the build wants. */
  unchanged: string[];
  /** Dropped keys whose delay has passed. */
  remove: string[];
  /** Dropped keys kept for now → since when they are missing from the build. */
  pending: Record<string, string>;
  /** Manifest entries carried into the next manifest as they are (unchanged and pending keys). */
  carried: Record<string, ManifestEntry>;
}

export interface PlanInput {
  desired: readonly DesiredDocument[];
  manifest: Manifest;
  /** Relative key → bare ETag of what the bucket holds, on a listing publish; null when this publish trusts the manifest. */
  listing: ReadonlyMap<string, string> | null;
  asOf: Date;
  deleteAfterMs: number;
}

export function planPublish(input: PlanInput): PublishPlan {
  const { manifest, listing } = input;
  const plan: PublishPlan = { upload: [], unchanged: [], remove: [], pending: {}, carried: {} };
  const wanted = new Set<string>();
  for (const d of input.desired) {
    wanted.add(d.doc.key);
    const seen = manifest.objects[d.doc.key];
    const inPlace = seen !== undefined && seen.fingerprint === d.fingerprint && (listing === null || listing.get(d.doc.key) === seen.etag);
    if (inPlace) {
      plan.unchanged.push(d.doc.key);
      plan.carried[d.doc.key] = seen;
    } else {
      plan.upload.push(d);
    }
  }
  plan.upload.sort((a, b) => a.doc.phase - b.doc.phase);
  // Objects we published before and the build no longer has: remembered with the time they went missing, deleted
  // once that is older than the delay (clients and CDN caches may still follow links to them).
  for (const [key, entry] of Object.entries(manifest.objects)) {
    if (wanted.has(key)) continue;
    if (listing !== null && !listing.has(key)) continue; // already gone: forget it
    const since = manifest.missingSince[key] ?? input.asOf.toISOString();
    if (input.asOf.getTime() - Date.parse(since) >= input.deleteAfterMs) {
      plan.remove.push(key);
    } else {
      plan.carried[key] = entry;
      plan.pending[key] = since;
    }
  }
  return plan;
}

/** The manifest to write after the plan ran: carried entries, the ETags of this publish's uploads, the listing clock. */
export function nextManifest(prev: Manifest, plan: PublishPlan, uploaded: Readonly<Record<string, string>>, listed: boolean, asOf: Date): Manifest {
  const objects: Record<string, ManifestEntry> = { ...plan.carried };
  for (const d of plan.upload) {
    const etag = uploaded[d.doc.key];
    if (etag !== undefined) objects[d.doc.key] = { etag, fingerprint: d.fingerprint };
  }
  return {
    version: MANIFEST_VERSION,
    objects,
    missingSince: { ...plan.pending },
    listedAt: listed ? asOf.toISOString() : prev.listedAt,
    sinceListing: listed ? 0 : prev.sinceListing + 1,
  };
}
