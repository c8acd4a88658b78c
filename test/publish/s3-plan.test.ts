// The S3 sink's decisions without a bucket: what to upload, keep and delete, when to list, and the next manifest.
import { describe, expect, it } from 'vitest';
import { DataError } from '../../builder/errors.ts';
import {
  applyUpdate,
  baseKeyOf,
  bodyDigest,
  createPublishLedger,
  emptyManifest,
  fingerprint,
  fingerprintV1,
  manifestOf,
  parseBase,
  parseIndex,
  planManifestWrite,
  sha256,
  shouldList,
  type Manifest,
  type ManifestEntry,
  type ManifestIndex,
} from '../../builder/publish/s3-plan.ts';
import { PHASE, type OutputDocument } from '../../builder/render/output.ts';

const T0 = new Date('2026-11-21T00:00:00.000Z');
const HOUR = 60 * 60 * 1000;
const at = (ms: number) => new Date(T0.getTime() + ms);

interface Desired {
  doc: OutputDocument;
  fingerprint: string;
  /** What a version-1 manifest recorded for it. */
  v1: string;
}

function desired(key: string, body: string, phase: number = PHASE.leaves, contentLanguage: string | null = 'en'): Desired {
  const doc: OutputDocument = { key, body, contentType: 'application/json; charset=utf-8', contentLanguage, cacheControl: 'public, max-age=30', phase };
  const digest = bodyDigest(body);
  return { doc, fingerprint: fingerprint(digest, doc), v1: fingerprintV1(digest, doc) };
}

function recorded(docs: Desired[], extra: Partial<Manifest> = {}): Manifest {
  const objects = new Map(docs.map((d, i) => [d.doc.key, { etag: `e${i}`, fingerprint: extra.legacy ? d.v1 : d.fingerprint }]));
  return { ...emptyManifest(), objects, listedAt: T0.toISOString(), ...extra };
}

/** One publish through the ledger, as a sink streams it: what it uploads (landing as `new-<key>`), keeps, deletes. */
function publish(docs: Desired[], manifest: Manifest, listing: Map<string, string> | null, asOf = T0, landed: (key: string) => boolean = () => true) {
  const ledger = createPublishLedger(manifest, 'test');
  const byKey = new Map(docs.map((d) => [d.doc.key, d]));
  const upload: string[] = [];
  const unchanged: string[] = [];
  for (const d of docs) {
    ledger.admit(d.doc.key);
    if (ledger.keep(d.doc.key, d.fingerprint, listing, () => byKey.get(d.doc.key)!.v1)) unchanged.push(d.doc.key);
    else {
      upload.push(d.doc.key);
      if (landed(d.doc.key)) ledger.landed(d.doc.key, { etag: `new-${d.doc.key}`, fingerprint: d.fingerprint });
    }
  }
  const { remove, pending, update } = ledger.finish({ listing, listed: listing !== null, asOf, deleteAfterMs: HOUR });
  expect({ uploaded: ledger.uploaded, unchanged: ledger.unchanged }).toEqual({ uploaded: upload.filter(landed).length, unchanged: unchanged.length });
  // On a copy: a test may publish from the same manifest twice.
  const next = applyUpdate({ ...manifest, objects: new Map(manifest.objects) }, update);
  return { upload, unchanged, remove, pending, update, next };
}

describe('the publish ledger', () => {
  const a = desired('api/en/a.json', '{"a":1}');
  const b = desired('api/en/b.json', '{"b":1}', PHASE.summaries);

  it('uploads everything against an empty manifest', () => {
    expect(publish([a, b], emptyManifest(), new Map()).upload).toEqual(['api/en/a.json', 'api/en/b.json']);
  });

  it('refuses a second document for a key', () => {
    const ledger = createPublishLedger(emptyManifest(), 'publish/test');
    ledger.admit('api/en/a.json');
    expect(() => ledger.admit('api/en/a.json')).toThrow(DataError);
    expect(() => ledger.admit('api/en/a.json')).toThrow(/\[publish\/test\] the build has two documents for api\/en\/a\.json/);
  });

  it('keeps what the manifest says is in place, trusting it when there is no listing', () => {
    const p = publish([a, b], recorded([a, b]), null);
    expect(p.upload).toEqual([]);
    expect(p.unchanged).toEqual(['api/en/a.json', 'api/en/b.json']);
    expect(p.next.objects.get('api/en/a.json')).toEqual({ etag: 'e0', fingerprint: a.fingerprint });
    // Nothing changed: the manifest has nothing new to write.
    expect(p.update.changes.size).toBe(0);
  });

  it('uploads a document whose body or headers changed', () => {
    const changedBody = desired('api/en/a.json', '{"a":2}');
    const changedLang = desired('api/en/b.json', '{"b":1}', PHASE.summaries, 'de');
    expect(publish([changedBody, changedLang], recorded([a, b]), null).upload).toEqual(['api/en/a.json', 'api/en/b.json']);
  });

  it('on a listing tick, uploads an object changed or deleted behind its back', () => {
    expect(publish([a, b], recorded([a, b]), new Map([['api/en/a.json', 'tampered']])).upload).toEqual(['api/en/a.json', 'api/en/b.json']);
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
    expect(Object.fromEntries(trusted.objects)).toEqual({ 'api/en/a.json': { etag: 'e0', fingerprint: a.fingerprint }, 'api/en/b.json': { etag: 'new-api/en/b.json', fingerprint: b.fingerprint } });
    expect(trusted).toMatchObject({ listedAt: T0.toISOString(), sinceListing: 3 });
    expect(publish([a, b], prev, new Map([['api/en/a.json', 'e0']]), at(HOUR)).next).toMatchObject({ listedAt: at(HOUR).toISOString(), sinceListing: 0 });
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

  it('reads the version-1 formula: SHA-256 of [body SHA-256 in hex, the three headers]', () => {
    const { doc } = desired('api/en/a.json', '{"a":1}');
    expect(fingerprintV1(bodyDigest(doc.body), doc)).toBe(sha256(JSON.stringify([sha256(doc.body), doc.contentType, doc.contentLanguage, doc.cacheControl])));
  });
});

describe('upgrade from a version-1 manifest', () => {
  const docs = ['a', 'b', 'c'].map((k) => desired(`api/en/${k}.json`, `{"${k}":1}`));
  const v1Text = JSON.stringify({
    version: 1,
    objects: Object.fromEntries(docs.map((d, i) => [d.doc.key, { etag: `e${i}`, fingerprint: d.v1 }])),
    missingSince: { 'api/en/gone.json': T0.toISOString() },
    listedAt: T0.toISOString(),
    sinceListing: 3,
  });

  it('is read with its listing clock and pending deletes, marked as version 1', () => {
    const parsed = parseIndex(v1Text);
    expect(parsed?.kind).toBe('v1');
    const m = parsed!.kind === 'v1' ? parsed!.manifest : emptyManifest();
    expect(m).toMatchObject({ legacy: true, listedAt: T0.toISOString(), sinceListing: 3, missingSince: { 'api/en/gone.json': T0.toISOString() } });
    expect(m.objects.get('api/en/a.json')).toEqual({ etag: 'e0', fingerprint: docs[0]!.v1 });
  });

  it('uploads nothing unchanged, records the new fingerprints and stores every entry anew (no journal to build on)', () => {
    const changed = desired('api/en/c.json', '{"c":2}');
    const p = publish([docs[0]!, docs[1]!, changed], recorded(docs, { legacy: true }), null);
    expect(p.upload).toEqual(['api/en/c.json']);
    expect(p.unchanged).toEqual(['api/en/a.json', 'api/en/b.json']);
    expect(p.next.legacy).toBe(false);
    expect(Object.fromEntries(p.next.objects)).toEqual({
      'api/en/a.json': { etag: 'e0', fingerprint: docs[0]!.fingerprint },
      'api/en/b.json': { etag: 'e1', fingerprint: docs[1]!.fingerprint },
      'api/en/c.json': { etag: 'new-api/en/c.json', fingerprint: changed.fingerprint },
    });
    // Stored from nothing: over the journal bound a base of every entry, else every entry in the journal.
    const big = planManifestWrite(null, p.next, p.update, 2);
    expect(big.base?.body.keys).toEqual(['api/en/a.json', 'api/en/b.json', 'api/en/c.json']);
    expect(big.index(null).journal).toEqual({});
    const small = planManifestWrite(null, p.next, p.update, 3);
    expect(small.base).toBeNull();
    expect(Object.keys(small.index(null).journal)).toHaveLength(3);
    // The next publish compares with the new formula, and keeps everything.
    const again = publish([docs[0]!, docs[1]!, changed], p.next, null);
    expect(again.upload).toEqual([]);
  });

  it('uploads a document whose version-1 fingerprint differs', () => {
    const stale = recorded(docs, { legacy: true });
    stale.objects.set('api/en/b.json', { etag: 'e1', fingerprint: 'something else' });
    expect(publish(docs, stale, null).upload).toEqual(['api/en/b.json']);
  });
});

describe('the stored manifest (index, journal, base)', () => {
  const entry = (i: number): ManifestEntry => ({ etag: `e${i}`, fingerprint: `f${i}` });
  const many = (n: number, from = 0) => new Map(Array.from({ length: n }, (_, i) => [`api/k-${String(i + from).padStart(4, '0')}.json`, entry(i + from)]));
  const clock = { missingSince: {}, listedAt: T0.toISOString(), sinceListing: 0 };
  const asManifest = (objects: Map<string, ManifestEntry>): Manifest => ({ ...emptyManifest(), objects: new Map(objects) });
  const roundTrip = (index: ManifestIndex): ManifestIndex => {
    const p = parseIndex(JSON.stringify(index));
    if (p?.kind !== 'v2') throw new Error('not a version-2 index');
    return p.index;
  };

  it('puts a small manifest wholly in the index, with no base', () => {
    const all = many(10);
    const w = planManifestWrite(null, asManifest(all), { changes: new Map(all), ...clock }, 16);
    expect(w.base).toBeNull();
    const index = roundTrip(w.index(w.keptBase));
    expect(Object.fromEntries(manifestOf(index, null).objects)).toEqual(Object.fromEntries(all));
  });

  it('writes a large one into a base, then only the changes into the journal, and never lets the journal outgrow its bound', () => {
    const max = 16;
    let objects = many(100);
    let w = planManifestWrite(null, asManifest(objects), { changes: new Map(objects), ...clock }, max);
    expect(w.base?.slot).toBe('a');
    const baseText = JSON.stringify(w.base!.body);
    let index = roundTrip(w.index({ slot: 'a', etag: 'base-etag-1', entries: 100 }));
    let base = parseBase(baseText)!;
    expect(base.size).toBe(100);
    const slots: string[] = [];
    for (let round = 0; round < 12; round++) {
      // Each round changes three entries, adds one and drops one.
      const changes = new Map<string, ManifestEntry | null>([
        ...[...objects.keys()].slice(round * 3, round * 3 + 3).map((k): [string, ManifestEntry] => [k, { etag: `r${round}`, fingerprint: `g${round}` }]),
        [`api/new-${round}.json`, entry(1000 + round)],
        [[...objects.keys()].at(-1)!, null],
      ]);
      const before = manifestOf(index, new Map(base));
      const after = applyUpdate(before, { changes, ...clock });
      w = planManifestWrite(index, after, { changes, ...clock }, max);
      if (w.base !== null) {
        slots.push(w.base.slot);
        expect(w.base.slot).not.toBe(index.base!.slot); // never the base in use
        base = parseBase(JSON.stringify(w.base.body))!;
        index = roundTrip(w.index({ slot: w.base.slot, etag: `base-etag-${round}`, entries: base.size }));
      } else index = roundTrip(w.index(w.keptBase));
      expect(Object.keys(index.journal).length).toBeLessThanOrEqual(max);
      // What is stored reads back as exactly the manifest after the publish.
      objects = new Map([...after.objects]);
      expect(Object.fromEntries(manifestOf(index, new Map(base)).objects)).toEqual(Object.fromEntries(objects));
    }
    expect(slots.length).toBeGreaterThanOrEqual(2);
    expect(slots.slice(0, 2)).toEqual(['b', 'a']);
  });

  it('with its base lost, still carries the keys pending deletion so they are deleted on time', () => {
    const index: ManifestIndex = { version: 2, base: { slot: 'a', etag: 'x', entries: 5 }, journal: { 'api/j.json': ['e', 'f'] }, missingSince: { 'api/old.json': T0.toISOString() }, listedAt: null, sinceListing: 0 };
    const m = manifestOf(index, null);
    expect([...m.objects.keys()].sort()).toEqual(['api/j.json', 'api/old.json']);
    const p = publish([desired('api/j.json', '{}')], m, null, at(HOUR));
    expect(p.remove).toEqual(['api/old.json']);
  });

  it('rejects what it cannot trust', () => {
    expect(parseIndex('not json')).toBeNull();
    expect(parseIndex(JSON.stringify({ version: 3, journal: {} }))).toBeNull();
    expect(parseIndex(JSON.stringify({ version: 2, journal: {}, base: { slot: 'c', etag: 'x', entries: 1 } }))).toBeNull();
    expect(parseIndex(JSON.stringify({ version: 1, objects: { k: { etag: 1 } }, missingSince: { k: 'never' } }))).toEqual({ kind: 'v1', manifest: { ...emptyManifest(), legacy: true } });
    expect(parseBase('{"version":2,"keys":["a"],"etags":[],"fingerprints":[]}')).toBeNull();
    expect(parseBase('{"version":2,"keys":["a"],"etags":["e"],"fingerprints":[7]}')).toBeNull();
    expect(parseBase('{"version":2,"keys":["a"],"etags":["e"],"fingerprints":["f"]}')).toEqual(new Map([['a', { etag: 'e', fingerprint: 'f' }]]));
    expect(baseKeyOf('state/publish-manifest.json', 'b')).toBe('state/publish-manifest.json.base-b');
  });
});
