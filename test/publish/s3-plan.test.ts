// The S3 sink's decisions without a bucket: what to upload, keep and delete, when to list, and the next manifest.
import { describe, expect, it } from 'vitest';
import {
  emptyManifest,
  fingerprint,
  nextManifest,
  parseManifest,
  planPublish,
  sha256,
  shouldList,
  type DesiredDocument,
  type Manifest,
} from '../../builder/publish/s3-plan.ts';
import { PHASE, type OutputDocument } from '../../builder/render/output.ts';

const T0 = new Date('2026-11-21T00:00:00.000Z');
const HOUR = 60 * 60 * 1000;
const at = (ms: number) => new Date(T0.getTime() + ms);

function desired(key: string, body: string, phase: number = PHASE.leaves, contentLanguage: string | null = 'en'): DesiredDocument {
  const doc: OutputDocument = { key, body, contentType: 'application/json; charset=utf-8', contentLanguage, cacheControl: 'public, max-age=30', phase };
  const bodySha256 = sha256(body);
  return { doc, bodySha256, fingerprint: fingerprint(bodySha256, doc) };
}

function manifestOf(docs: DesiredDocument[], extra: Partial<Manifest> = {}): Manifest {
  const objects = Object.fromEntries(docs.map((d, i) => [d.doc.key, { etag: `e${i}`, fingerprint: d.fingerprint }]));
  return { ...emptyManifest(), objects, listedAt: T0.toISOString(), ...extra };
}

const plan = (docs: DesiredDocument[], manifest: Manifest, listing: Map<string, string> | null, asOf = T0) =>
  planPublish({ desired: docs, manifest, listing, asOf, deleteAfterMs: HOUR });

describe('planPublish', () => {
  const a = desired('api/en/a.json', '{"a":1}');
  const b = desired('api/en/b.json', '{"b":1}', PHASE.summaries);

  it('uploads everything, in phase order, against an empty manifest', () => {
    const p = plan([b, a], emptyManifest(), new Map());
    expect(p.upload.map((u) => u.doc.key)).toEqual(['api/en/a.json', 'api/en/b.json']);
    expect(p.unchanged).toEqual([]);
  });

  it('keeps what the manifest says is in place, trusting it when there is no listing', () => {
    const p = plan([a, b], manifestOf([a, b]), null);
    expect(p.upload).toEqual([]);
    expect(p.unchanged).toEqual(['api/en/a.json', 'api/en/b.json']);
    expect(p.carried['api/en/a.json']).toEqual({ etag: 'e0', fingerprint: a.fingerprint });
  });

  it('uploads a document whose body or headers changed', () => {
    const changedBody = desired('api/en/a.json', '{"a":2}');
    const changedLang = desired('api/en/b.json', '{"b":1}', PHASE.summaries, 'de');
    const p = plan([changedBody, changedLang], manifestOf([a, b]), null);
    expect(p.upload.map((u) => u.doc.key)).toEqual(['api/en/a.json', 'api/en/b.json']);
  });

  it('on a listing tick, uploads an object changed or deleted behind its back', () => {
    const p = plan([a, b], manifestOf([a, b]), new Map([['api/en/a.json', 'tampered']]));
    expect(p.upload.map((u) => u.doc.key)).toEqual(['api/en/a.json', 'api/en/b.json']);
  });

  it('keeps a dropped object for the delay, then deletes it; forgets one the listing shows gone', () => {
    const m = manifestOf([a, b]);
    const first = plan([a], m, null);
    expect(first.remove).toEqual([]);
    expect(first.pending).toEqual({ 'api/en/b.json': T0.toISOString() });
    const next = nextManifest(m, first, {}, false, T0);
    expect(plan([a], next, null, at(HOUR - 1)).remove).toEqual([]);
    expect(plan([a], next, null, at(HOUR)).remove).toEqual(['api/en/b.json']);
    const gone = plan([a], next, new Map([['api/en/a.json', 'e0']]), at(HOUR));
    expect(gone.remove).toEqual([]);
    expect(gone.pending).toEqual({});
  });

  it('keeps a document that came back before its delay ran out', () => {
    const m = nextManifest(manifestOf([a, b]), plan([a], manifestOf([a, b]), null), {}, false, T0);
    const back = plan([a, b], m, null, at(2 * HOUR));
    expect(back.remove).toEqual([]);
    expect(back.pending).toEqual({});
    expect(back.unchanged).toContain('api/en/b.json');
  });
});

describe('nextManifest', () => {
  it('records the new ETags, carries the rest, and keeps the listing clock', () => {
    const a = desired('api/en/a.json', '{"a":1}');
    const b = desired('api/en/b.json', '{"b":1}');
    const prev = manifestOf([a], { sinceListing: 2 });
    const p = plan([a, b], prev, null);
    const trusted = nextManifest(prev, p, { 'api/en/b.json': 'new' }, false, at(HOUR));
    expect(trusted.objects).toEqual({ 'api/en/a.json': { etag: 'e0', fingerprint: a.fingerprint }, 'api/en/b.json': { etag: 'new', fingerprint: b.fingerprint } });
    expect(trusted).toMatchObject({ listedAt: T0.toISOString(), sinceListing: 3 });
    expect(nextManifest(prev, p, {}, true, at(HOUR))).toMatchObject({ listedAt: at(HOUR).toISOString(), sinceListing: 0 });
  });

  it('leaves out a planned upload that did not land', () => {
    const a = desired('api/en/a.json', '{"a":1}');
    expect(nextManifest(emptyManifest(), plan([a], emptyManifest(), null), {}, false, T0).objects).toEqual({});
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

describe('parseManifest', () => {
  it('reads what nextManifest writes, and an older manifest without the listing clock', () => {
    const m: Manifest = { ...emptyManifest(), objects: { k: { etag: 'e', fingerprint: 'f' } }, missingSince: { k: T0.toISOString() }, listedAt: T0.toISOString(), sinceListing: 5 };
    expect(parseManifest(JSON.stringify(m))).toEqual(m);
    expect(parseManifest(JSON.stringify({ version: 1, objects: {}, missingSince: {} }))).toEqual(emptyManifest());
  });

  it('rejects what it cannot trust', () => {
    expect(parseManifest('not json')).toBeNull();
    expect(parseManifest(JSON.stringify({ version: 2, objects: {} }))).toBeNull();
    expect(parseManifest(JSON.stringify({ version: 1, objects: { k: { etag: 1 } }, missingSince: { k: 'never' } }))).toEqual(emptyManifest());
  });
});
