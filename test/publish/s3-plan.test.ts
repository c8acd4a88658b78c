// The S3 sink's decisions without a bucket: what to upload, keep and delete, when to list, and the next manifest.
import { describe, expect, it } from 'vitest';
import {
  bodyDigest,
  bodyMd5,
  createPublishLedger,
  emptyManifest,
  fingerprint,
  parseManifest,
  serializeManifest,
  shouldList,
  type Manifest,
} from '../../builder/publish/s3-plan.ts';
import { PHASE, type OutputDocument } from '../../builder/render/output.ts';

const T0 = new Date('2026-11-21T00:00:00.000Z');
const HOUR = 60 * 60 * 1000;
const at = (ms: number) => new Date(T0.getTime() + ms);

interface Desired {
  doc: OutputDocument;
  fingerprint: string;
}

function desired(
  key: string,
  body: string,
  phase: number = PHASE.leaves,
  contentLanguage: string | null = 'en',
): Desired {
  const doc: OutputDocument = {
    key,
    body,
    contentType: 'application/json; charset=utf-8',
    contentLanguage,
    cacheControl: 'public, max-age=30',
    phase,
  };
  const digest = bodyDigest(body);
  return { doc, fingerprint: fingerprint(digest, doc) };
}

function recorded(docs: Desired[], extra: Partial<Manifest> = {}): Manifest {
  const objects = new Map(docs.map((d, i) => [d.doc.key, { etag: `e${i}`, fingerprint: d.fingerprint }]));
  return { ...emptyManifest(), objects, listedAt: T0.toISOString(), ...extra };
}

/** One publish through the ledger, as a sink streams it: what it uploads (landing as `new-<key>`), keeps, deletes. */
function publish(
  docs: Desired[],
  manifest: Manifest,
  listing: Map<string, string> | null,
  asOf = T0,
  landed: (key: string) => boolean = () => true,
) {
  const ledger = createPublishLedger(manifest);
  const upload: string[] = [];
  const unchanged: string[] = [];
  for (const d of docs) {
    if (ledger.keep(d.doc.key, d.fingerprint, listing, () => bodyMd5(d.doc.body))) unchanged.push(d.doc.key);
    else {
      upload.push(d.doc.key);
      if (landed(d.doc.key)) ledger.landed(d.doc.key, { etag: `new-${d.doc.key}`, fingerprint: d.fingerprint });
    }
  }
  const built = new Set(docs.map((d) => d.doc.key));
  const { remove, pending, next } = ledger.finish({ built, listing, asOf, deleteAfterMs: HOUR });
  return { upload, unchanged, remove, pending, next };
}

describe('the publish ledger', () => {
  const a = desired('api/en/a.json', '{"a":1}');
  const b = desired('api/en/b.json', '{"b":1}', PHASE.summaries);

  it('uploads everything against an empty manifest', () => {
    expect(publish([a, b], emptyManifest(), new Map()).upload).toEqual(['api/en/a.json', 'api/en/b.json']);
  });

  it('keeps what the manifest says is in place, trusting it when there is no listing', () => {
    const p = publish([a, b], recorded([a, b]), null);
    expect(p.upload).toEqual([]);
    expect(p.unchanged).toEqual(['api/en/a.json', 'api/en/b.json']);
    expect(p.next.objects.get('api/en/a.json')).toEqual({ etag: 'e0', fingerprint: a.fingerprint });
    // Nothing changed: the next manifest has the same entries.
    expect(p.next.objects).toEqual(recorded([a, b]).objects);
  });

  it('uploads a document whose body or headers changed', () => {
    const changedBody = desired('api/en/a.json', '{"a":2}');
    const changedLang = desired('api/en/b.json', '{"b":1}', PHASE.summaries, 'de');
    expect(publish([changedBody, changedLang], recorded([a, b]), null).upload).toEqual([
      'api/en/a.json',
      'api/en/b.json',
    ]);
  });

  it('on a listing tick, uploads an object changed or deleted behind its back', () => {
    expect(publish([a, b], recorded([a, b]), new Map([['api/en/a.json', 'tampered']])).upload).toEqual([
      'api/en/a.json',
      'api/en/b.json',
    ]);
  });

  it('keeps a dropped object for the delay, then deletes it; forgets one the listing shows gone', () => {
    const first = publish([a], recorded([a, b]), null);
    expect(first.remove).toEqual([]);
    expect(first.pending).toEqual({ 'api/en/b.json': T0.toISOString() });
    expect(publish([a], first.next, null, at(HOUR - 1)).remove).toEqual([]);
    const due = publish([a], first.next, null, at(HOUR));
    expect(due.remove).toEqual(['api/en/b.json']);
    expect(due.next.objects.has('api/en/b.json')).toBe(false);
    const gone = publish([a], first.next, new Map([['api/en/a.json', 'e0']]), at(HOUR));
    expect(gone.remove).toEqual([]);
    expect(gone.pending).toEqual({});
  });

  it('keeps a document that came back before its delay ran out', () => {
    const { next } = publish([a], recorded([a, b]), null);
    const back = publish([a, b], next, null, at(2 * HOUR));
    expect(back.remove).toEqual([]);
    expect(back.pending).toEqual({});
    expect(back.unchanged).toContain('api/en/b.json');
  });

  it('writes the new ETags into the next manifest, carries the rest, and keeps the listing clock', () => {
    const prev = recorded([a], { sinceListing: 2 });
    const trusted = publish([a, b], prev, null, at(HOUR)).next;
    expect(Object.fromEntries(trusted.objects)).toEqual({
      'api/en/a.json': { etag: 'e0', fingerprint: a.fingerprint },
      'api/en/b.json': { etag: 'new-api/en/b.json', fingerprint: b.fingerprint },
    });
    expect(trusted).toMatchObject({ listedAt: T0.toISOString(), sinceListing: 3 });
    expect(publish([a, b], prev, new Map([['api/en/a.json', 'e0']]), at(HOUR)).next).toMatchObject({
      listedAt: at(HOUR).toISOString(),
      sinceListing: 0,
    });
  });

  it('leaves out of the next manifest an upload that did not land', () => {
    expect(publish([a], emptyManifest(), null, T0, () => false).next.objects.size).toBe(0);
  });
});

describe('shouldList', () => {
  const cadence = { listEvery: 4, listMaxAgeMs: 6 * HOUR };
  it('lists when it never did, on every listEvery-th publish, and when the last listing is too old', () => {
    expect(shouldList(emptyManifest(), T0, cadence)).toBe(true);
    const listed = { ...emptyManifest(), listedAt: T0.toISOString() };
    expect(shouldList({ ...listed, sinceListing: 0 }, at(HOUR), cadence)).toBe(false);
    expect(shouldList({ ...listed, sinceListing: 2 }, at(HOUR), cadence)).toBe(false);
    expect(shouldList({ ...listed, sinceListing: 3 }, at(HOUR), cadence)).toBe(true);
    expect(shouldList({ ...listed, sinceListing: 0 }, at(6 * HOUR), cadence)).toBe(true);
    expect(shouldList({ ...listed, sinceListing: 0 }, at(HOUR), { listEvery: 1, listMaxAgeMs: 6 * HOUR })).toBe(true);
  });
});

describe('fingerprints', () => {
  it('change with the body and with each header, one body hash per document', () => {
    const base = desired('api/en/a.json', '{"a":1}').doc;
    const d = bodyDigest(base.body);
    const prints = [
      fingerprint(d, base),
      fingerprint(bodyDigest('{"a":2}'), base),
      fingerprint(d, { ...base, contentType: 'text/plain' }),
      fingerprint(d, { ...base, contentLanguage: 'de' }),
      fingerprint(d, { ...base, contentLanguage: null }),
      fingerprint(d, { ...base, contentLanguage: '' }),
      fingerprint(d, { ...base, cacheControl: 'no-store' }),
    ];
    expect(new Set(prints).size).toBe(prints.length);
    expect(fingerprint(d, { ...base })).toBe(prints[0]);
  });
});

describe('a manifest recovered from a listing (the stored one missing or unreadable)', () => {
  const docs = ['a', 'b', 'c'].map((k) => desired(`api/en/${k}.json`, `{"${k}":1}`));
  const recovered = (): Manifest => ({ ...emptyManifest(), recovered: true });

  it("keeps a document whose listed ETag is its body's MD5, records its fingerprint, and uploads the rest", () => {
    const listing = new Map([
      ['api/en/a.json', bodyMd5(docs[0]!.doc.body)],
      ['api/en/b.json', bodyMd5('{"b":0}')],
      ['api/en/foreign.json', 'x'],
    ]);
    const p = publish(docs, recovered(), listing);
    expect(p.unchanged).toEqual(['api/en/a.json']);
    expect(p.upload).toEqual(['api/en/b.json', 'api/en/c.json']);
    expect(Object.fromEntries(p.next.objects)).toEqual({
      'api/en/a.json': { etag: bodyMd5(docs[0]!.doc.body), fingerprint: docs[0]!.fingerprint },
      'api/en/b.json': { etag: 'new-api/en/b.json', fingerprint: docs[1]!.fingerprint },
      'api/en/c.json': { etag: 'new-api/en/c.json', fingerprint: docs[2]!.fingerprint },
    });
    // Listed objects the build lacks may not be ours: neither deleted nor remembered.
    expect(p.remove).toEqual([]);
    expect(p.pending).toEqual({});
    expect(p.next).toMatchObject({ recovered: false, listedAt: T0.toISOString(), sinceListing: 0 });
    // The next publish compares fingerprints again, and keeps everything.
    expect(publish(docs, p.next, null).upload).toEqual([]);
  });
});

describe('the stored manifest (one object)', () => {
  it('reads back as exactly the manifest written: entries, pending deletes and the listing clock', () => {
    const m: Manifest = {
      objects: new Map([
        ['api/en/a.json', { etag: 'e0', fingerprint: 'f0' }],
        ['api/de/b.json', { etag: 'e1', fingerprint: 'f1' }],
      ]),
      missingSince: { 'api/en/gone.json': T0.toISOString() },
      listedAt: T0.toISOString(),
      sinceListing: 3,
      recovered: false,
    };
    expect(parseManifest(serializeManifest(m))).toEqual(m);
  });

  it('is unreadable (and so recovered from a listing) when it is not JSON, of another version, or without entries', () => {
    expect(parseManifest('not json')).toBeNull();
    expect(parseManifest('null')).toBeNull();
    expect(parseManifest(JSON.stringify({ version: 2, base: null, journal: {}, missingSince: {} }))).toBeNull();
    expect(parseManifest(JSON.stringify({ version: 1, objects: {} }))).toBeNull();
    expect(parseManifest(JSON.stringify({ version: 3 }))).toBeNull();
  });

  it('drops what it cannot trust inside a readable one: malformed entries and dates', () => {
    const text = JSON.stringify({
      version: 3,
      objects: { a: ['e', 'f'], b: { etag: 'e' }, c: ['e', 7] },
      missingSince: { a: 'never', b: T0.toISOString() },
      listedAt: 'soon',
      sinceListing: -1,
    });
    expect(parseManifest(text)).toEqual({
      objects: new Map([['a', { etag: 'e', fingerprint: 'f' }]]),
      missingSince: { b: T0.toISOString() },
      listedAt: null,
      sinceListing: 0,
      recovered: false,
    });
  });
});
