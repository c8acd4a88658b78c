// The follow-it documents through the shared router: unit routing, then over HTTP from the real preview server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FOLLOW_DOCUMENTS, LANGS } from '../../builder/contract.ts';
import { startPreview, type PreviewServer } from '../../builder/edge/preview.ts';
import { baseHeaders, route } from '../../builder/edge/route.ts';
import { createTempBuild } from '../helpers/build.ts';
import { parseAtom } from '../helpers/follow.ts';

const NAMES = Object.keys(FOLLOW_DOCUMENTS) as (keyof typeof FOLLOW_DOCUMENTS)[];

describe('route', () => {
  it('maps each follow document and lang onto its key with its content type and the contract headers', () => {
    for (const name of NAMES) {
      const r = route({ method: 'GET', uri: `/api/${name}`, query: 'lang=JA' });
      expect(r).toEqual({
        kind: 'object',
        key: `api/ja/${name}`,
        lang: 'ja',
        headers: { ...baseHeaders('ja'), 'content-type': FOLLOW_DOCUMENTS[name] },
      });
    }
    expect(route({ method: 'GET', uri: '/api/feed.atom', query: '' })).toMatchObject({ key: 'api/en/feed.atom' });
    expect(route({ method: 'GET', uri: '/api/feed.atom', query: 'lang=xx' })).toMatchObject({
      kind: 'response',
      status: 400,
    });
    expect(route({ method: 'GET', uri: '/api/feed.rss', query: '' })).toMatchObject({ kind: 'response', status: 404 });
    expect(route({ method: 'GET', uri: '/api/en/feed.atom', query: '' })).toMatchObject({
      kind: 'response',
      status: 404,
    });
  });
});

describe('preview', () => {
  let preview: PreviewServer;
  beforeAll(async () => {
    const b = await createTempBuild();
    await b.build('2026-11-21T12:00:00.000Z');
    preview = await startPreview({ root: b.outDir, port: 0 });
  });
  afterAll(async () => {
    await preview?.close();
  });

  it('serves every follow document in every language with its content type, Content-Language, Cache-Control and CORS', async () => {
    for (const name of NAMES) {
      for (const lang of LANGS) {
        const res = await fetch(`${preview.url}/api/${name}?lang=${lang}`);
        const body = await res.text();
        expect(res.status, `${name} ${lang}`).toBe(200);
        expect(res.headers.get('content-type')).toBe(FOLLOW_DOCUMENTS[name]);
        expect(res.headers.get('content-language')).toBe(lang);
        expect(res.headers.get('cache-control')).toBe('public, max-age=30');
        expect(res.headers.get('access-control-allow-origin')).toBe('*');
        expect(body.length).toBeGreaterThan(0);
      }
    }
    expect(
      parseAtom(await (await fetch(`${preview.url}/api/feed.atom?lang=zh`)).text()).entries.length,
    ).toBeGreaterThan(0);
  });

  it("keeps the document's content type on range and conditional requests", async () => {
    const res = await fetch(`${preview.url}/api/calendar.ics?lang=de`, { headers: { range: 'bytes=0-14' } });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    expect(await res.text()).toBe('BEGIN:VCALENDAR');
    const etag = (await fetch(`${preview.url}/api/feed.json`)).headers.get('etag')!;
    const again = await fetch(`${preview.url}/api/feed.json`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });

  it('lists the follow endpoints in the OpenAPI document with their media types', async () => {
    const doc = (await (await fetch(`${preview.url}/api/openapi.json`)).json()) as { paths: Record<string, any> };
    for (const name of NAMES) {
      const op = doc.paths[`/api/${name}`].get;
      expect(op.parameters[0].$ref).toBe('#/components/parameters/lang');
      expect(Object.keys(op.responses['200'].content)).toEqual([FOLLOW_DOCUMENTS[name].split(';')[0]]);
    }
    expect(doc.paths['/api/latest'].get.responses['200'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/Latest',
    );
    expect(JSON.stringify(doc)).toContain('"Upcoming"');
  });
});
