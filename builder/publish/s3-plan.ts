// Pure: what the S3 sink does in one publish, decided document by document as the build streams in, from the previous
// manifest and (on the ticks that list the bucket) the listing. The sink only carries it out; every rule lives and is
// tested here.
//
// The manifest records, per published key, the ETag S3 returned for our PUT and a fingerprint of body + headers. A
// document is unchanged when its fingerprint equals the recorded one and, on a listing tick, the listing still shows
// the recorded ETag (so objects changed or deleted behind our back are caught). Listing costs one request per 1000
// objects, so most ticks trust the manifest and only every `listEvery`-th tick, or when the last listing is older
// than `listMaxAgeMs`, lists: an idle tick then costs the manifest's reads and one PUT plus the uploads of what changed.
//
// Stored (version 2), the manifest is two parts, so a publish that changes a few objects of 50,000 writes a few
// entries, not 50,000:
//  - the index, at the manifest key: the listing clock, the pending deletes, a *journal* of the entries changed since
//    the base was written (at most JOURNAL_MAX_ENTRIES), and a reference to the base (its slot and ETag). It is
//    written on every publish, with If-Match on the index read at the start (two publishers at once fail loudly).
//  - the base, every entry as of some publish, compact (three parallel arrays), in one of two slots next to the index
//    (`<manifest key>.base-a` / `.base-b`). When the journal would outgrow its bound, the publish writes the merged
//    entries into the slot the index does not name, then the index naming it: the base in use is never overwritten,
//    and a failed publish leaves the old index and its base as they were.
// A base whose ETag is not the one the index names (a racing publisher's slot write, a hand edit) or that does not
// parse is treated as lost: its objects are uploaded again (never lost; one full re-upload), like a lost manifest.
// A version-1 manifest (one JSON object of every entry, fingerprints of an older formula) is read on upgrade: each
// document is compared with the old formula, so the upgrade costs no upload, only one base write.
import { hash } from 'node:crypto';
import { CACHE_CONTROL, JSON_CONTENT_TYPE } from '../contract.ts';
import { DataError } from '../errors.ts';
import type { OutputDocument } from '../render/output.ts';

export const MANIFEST_VERSION = 2;
/** The older manifest, read on upgrade and never written. */
export const MANIFEST_V1 = 1;
/**
 * Entries the index's journal holds at most: beyond, the publish writes a new base. One new event changes ~135
 * objects of 51,144 at 10,000 events and an idle tick the same ~25 live ones, so the base is rewritten after many
 * new events, while the index (PUT every publish) stays near 130 KiB at most.
 */
export const JOURNAL_MAX_ENTRIES = 1024;
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
  /** Fingerprints of version 1 (read from a version-1 manifest): documents are compared with `fingerprintV1`. */
  legacy: boolean;
}

export const emptyManifest = (): Manifest => ({ objects: new Map(), missingSince: {}, listedAt: null, sinceListing: 0, legacy: false });

/** Which base slot an index names, with the ETag its write returned and how many entries it holds. */
export interface BaseRef {
  slot: 'a' | 'b';
  etag: string;
  entries: number;
}

/** The stored index (version 2). A journal entry is [etag, fingerprint], or null for a key the base has and is gone. */
export interface ManifestIndex {
  version: typeof MANIFEST_VERSION;
  base: BaseRef | null;
  journal: Record<string, [string, string] | null>;
  missingSince: Record<string, string>;
  listedAt: string | null;
  sinceListing: number;
}

/** The stored base: every entry, keys sorted, the three arrays index-aligned. */
export interface ManifestBase {
  version: typeof MANIFEST_VERSION;
  keys: string[];
  etags: string[];
  fingerprints: string[];
}

export const baseKeyOf = (manifestKey: string, slot: BaseRef['slot']): string => `${manifestKey}.base-${slot}`;

const isoOrNull = (v: unknown): string | null => (typeof v === 'string' && Number.isFinite(Date.parse(v)) ? v : null);

function clockOf(raw: { missingSince?: unknown; listedAt?: unknown; sinceListing?: unknown }): Pick<Manifest, 'missingSince' | 'listedAt' | 'sinceListing'> {
  const missingSince: Record<string, string> = {};
  if (typeof raw.missingSince === 'object' && raw.missingSince !== null) {
    for (const [k, v] of Object.entries(raw.missingSince)) if (isoOrNull(v) !== null) missingSince[k] = v as string;
  }
  const sinceListing = Number.isInteger(raw.sinceListing) && (raw.sinceListing as number) >= 0 ? (raw.sinceListing as number) : 0;
  return { missingSince, listedAt: isoOrNull(raw.listedAt), sinceListing };
}

export type ParsedIndex = { kind: 'v1'; manifest: Manifest } | { kind: 'v2'; index: ManifestIndex };

/** The stored index (or a version-1 manifest), or null when it is unreadable (which only costs a full re-upload). */
export function parseIndex(text: string): ParsedIndex | null {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (typeof raw !== 'object' || raw === null) return null;
  if (raw.version === MANIFEST_V1) {
    if (typeof raw.objects !== 'object' || raw.objects === null) return null;
    const objects = new Map<string, ManifestEntry>();
    for (const [k, v] of Object.entries(raw.objects as Record<string, { etag?: unknown; fingerprint?: unknown } | null>)) {
      if (typeof v?.etag === 'string' && typeof v.fingerprint === 'string') objects.set(k, { etag: v.etag, fingerprint: v.fingerprint });
    }
    return { kind: 'v1', manifest: { objects, ...clockOf(raw), legacy: true } };
  }
  if (raw.version !== MANIFEST_VERSION || typeof raw.journal !== 'object' || raw.journal === null) return null;
  const journal: ManifestIndex['journal'] = {};
  for (const [k, v] of Object.entries(raw.journal as Record<string, unknown>)) {
    if (v === null) journal[k] = null;
    else if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string') journal[k] = [v[0], v[1]];
  }
  const b = raw.base as Partial<BaseRef> | null | undefined;
  const base = b && (b.slot === 'a' || b.slot === 'b') && typeof b.etag === 'string' && Number.isInteger(b.entries) ? { slot: b.slot, etag: b.etag, entries: b.entries as number } : null;
  if (b != null && base === null) return null; // a base named but not readably: the journal alone would miss its entries
  return { kind: 'v2', index: { version: MANIFEST_VERSION, base, journal, ...clockOf(raw) } };
}

/** The base's entries, or null when it does not parse as one (then its objects are uploaded again). */
export function parseBase(text: string): Map<string, ManifestEntry> | null {
  try {
    const raw = JSON.parse(text) as Partial<ManifestBase>;
    const { keys, etags, fingerprints } = raw;
    if (raw.version !== MANIFEST_VERSION || !Array.isArray(keys) || !Array.isArray(etags) || !Array.isArray(fingerprints)) return null;
    if (etags.length !== keys.length || fingerprints.length !== keys.length) return null;
    const objects = new Map<string, ManifestEntry>();
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      const etag = etags[i];
      const fingerprint = fingerprints[i];
      if (typeof k !== 'string' || typeof etag !== 'string' || typeof fingerprint !== 'string') return null;
      objects.set(k, { etag, fingerprint });
    }
    return objects;
  } catch {
    return null;
  }
}

/**
 * The manifest from an index and its base's entries (null: no base, or a base that is lost). With the base lost,
 * the keys pending deletion are still carried (with an entry no document matches), so they are deleted on time.
 */
export function manifestOf(index: ManifestIndex, base: Map<string, ManifestEntry> | null): Manifest {
  const objects = base ?? new Map<string, ManifestEntry>();
  for (const [k, v] of Object.entries(index.journal)) {
    if (v === null) objects.delete(k);
    else objects.set(k, { etag: v[0], fingerprint: v[1] });
  }
  if (index.base !== null && base === null) {
    for (const k of Object.keys(index.missingSince)) if (!objects.has(k)) objects.set(k, { etag: '', fingerprint: '' });
  }
  return { objects, missingSince: index.missingSince, listedAt: index.listedAt, sinceListing: index.sinceListing, legacy: false };
}

/** The body's SHA-256 in base64, computed once per document: the fingerprint's core, and (as hex) the upload's. */
export const bodyDigest = (body: string): string => hash('sha256', body, 'base64');
export const digestHex = (digestBase64: string): string => Buffer.from(digestBase64, 'base64').toString('hex');
/** Hex SHA-256 of a string's UTF-8 bytes: one native call, no hash object per document. */
export const sha256 = (s: string): string => hash('sha256', s, 'hex');

export function headersOf(d: OutputDocument): { contentType: string; contentLanguage: string | null; cacheControl: string } {
  return { contentType: d.contentType || JSON_CONTENT_TYPE, contentLanguage: d.contentLanguage, cacheControl: d.cacheControl || CACHE_CONTROL };
}

/** Header sets seen → their digest; a build has a handful (type × language × cache), the bound only guards odd input. */
const headerDigests = new Map<string, string>();
const HEADER_DIGESTS_MAX = 256;

/**
 * Body and headers in one value: the body's digest (132 bits of it) and a digest of the headers, remembered per
 * header set, so an unchanged document costs one hash of its body and nothing else.
 */
export function fingerprint(bodyDigestBase64: string, d: OutputDocument): string {
  return bodyDigestBase64.slice(0, BODY_DIGEST_CHARS) + headersTag(d);
}

/** The last header set asked for and its digest: documents come in runs of one header set. */
let lastHeaders: { contentType: string; contentLanguage: string | null; cacheControl: string; tag: string } | null = null;

function headersTag(d: OutputDocument): string {
  const l = lastHeaders;
  if (l !== null && l.contentType === d.contentType && l.contentLanguage === d.contentLanguage && l.cacheControl === d.cacheControl) return l.tag;
  const h = headersOf(d);
  const line = `${h.contentType}\n${h.contentLanguage ?? ''}\n${h.contentLanguage === null ? 0 : 1}\n${h.cacheControl}`;
  let tag = headerDigests.get(line);
  if (tag === undefined) {
    if (headerDigests.size >= HEADER_DIGESTS_MAX) headerDigests.clear();
    headerDigests.set(line, (tag = hash('sha256', line, 'base64').slice(0, HEADERS_DIGEST_CHARS)));
  }
  lastHeaders = { contentType: d.contentType, contentLanguage: d.contentLanguage, cacheControl: d.cacheControl, tag };
  return tag;
}

/** The fingerprint a version-1 manifest recorded: SHA-256 of [hex body SHA-256, the three headers] as JSON. */
export function fingerprintV1(bodyDigestBase64: string, d: OutputDocument): string {
  const h = headersOf(d);
  return sha256(JSON.stringify([digestHex(bodyDigestBase64), h.contentType, h.contentLanguage, h.cacheControl]));
}

export interface ListingCadence {
  /** List on every this-many-th publish (1: every publish). */
  listEvery: number;
  /** List when the last listing is at least this old. */
  listMaxAgeMs: number;
}

/** Whether this publish lists the bucket: never listed, every `listEvery`-th publish, or the last listing too old. */
export function shouldList(manifest: Pick<Manifest, 'listedAt' | 'sinceListing'>, asOf: Date, cadence: ListingCadence): boolean {
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
   * Whether the object is already as wanted: its recorded fingerprint is `fingerprint` (on a version-1 manifest,
   * `v1()`), and on a listing publish the listing shows its recorded ETag.
   */
  keep(key: string, fingerprint: string, listing: ReadonlyMap<string, string> | null, v1: () => string): boolean;
  /** Records an upload that landed. */
  landed(key: string, entry: ManifestEntry): void;
  readonly unchanged: number;
  readonly uploaded: number;
  /** After the whole build: the deletes due, and the manifest's changes to write once they are done. */
  finish(input: { listing: ReadonlyMap<string, string> | null; listed: boolean; asOf: Date; deleteAfterMs: number }): DeletePlan & { update: ManifestUpdate };
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
    keep(key, print, listing, v1) {
      const seen = key === lastKey ? lastEntry : manifest.objects.get(key);
      if (seen === undefined || (listing !== null && listing.get(key) !== seen.etag)) return false;
      if (manifest.legacy) {
        if (seen.fingerprint !== v1()) return false;
        changes.set(key, { etag: seen.etag, fingerprint: print });
      } else if (seen.fingerprint !== print) return false;
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
  return { objects: manifest.objects, missingSince: update.missingSince, listedAt: update.listedAt, sinceListing: update.sinceListing, legacy: false };
}

/** What a publish stores: a new base to write first (into `slot`), or none; then the index, naming the base. */
export interface ManifestWrite {
  base: { slot: BaseRef['slot']; body: ManifestBase } | null;
  /** The index, given the base it names: the new base's ref once written, else the one kept. */
  index(base: BaseRef | null): ManifestIndex;
  /** The base ref kept when no base is written. */
  keptBase: BaseRef | null;
}

/**
 * How the manifest after a publish is stored. `previous` is the index read at the start, when it was a readable
 * version-2 index whose base (if any) was read; otherwise (none, unreadable, version 1, base lost) there is nothing
 * to keep. With a base to keep, the publish's changes join the journal, unless the journal would grow beyond
 * `journalMax`: then (or with nothing to keep) every entry goes into a new base, in the slot the previous index does
 * not name, and the journal starts empty; a manifest of at most `journalMax` entries has no base at all.
 */
export function planManifestWrite(previous: ManifestIndex | null, after: Manifest, update: ManifestUpdate, journalMax: number = JOURNAL_MAX_ENTRIES): ManifestWrite {
  const clock = { missingSince: update.missingSince, listedAt: update.listedAt, sinceListing: update.sinceListing };
  const indexWith = (journal: ManifestIndex['journal']) => (base: BaseRef | null): ManifestIndex => ({ version: MANIFEST_VERSION, base, journal, ...clock });
  if (previous !== null) {
    const journal: ManifestIndex['journal'] = { ...previous.journal };
    for (const [k, v] of update.changes) {
      if (v !== null) journal[k] = [v.etag, v.fingerprint];
      else if (previous.base !== null) journal[k] = null; // the base may have it
      else delete journal[k];
    }
    if (Object.keys(journal).length <= journalMax) return { base: null, index: indexWith(journal), keptBase: previous.base };
  }
  if (after.objects.size <= journalMax) {
    const journal: ManifestIndex['journal'] = {};
    for (const [k, v] of after.objects) journal[k] = [v.etag, v.fingerprint];
    return { base: null, index: indexWith(journal), keptBase: null };
  }
  const keys = [...after.objects.keys()].sort();
  const body: ManifestBase = { version: MANIFEST_VERSION, keys, etags: [], fingerprints: [] };
  for (const k of keys) {
    const e = after.objects.get(k)!;
    body.etags.push(e.etag);
    body.fingerprints.push(e.fingerprint);
  }
  return { base: { slot: previous?.base?.slot === 'a' ? 'b' : 'a', body }, index: indexWith({}), keptBase: null };
}
