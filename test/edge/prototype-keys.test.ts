// Request input never reaches a plain-object lookup: prototype keys in every parameter (lang, type, event id, path,
// parameter names) are contract errors or ignored, never a crash or a wrong 200. Pure router and over HTTP.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, NOT_FOUND_KEY } from '../../builder/contract.ts';
import { startPreview, type PreviewServer } from '../../builder/edge/preview.ts';
import { route, type RouteResult } from '../../builder/edge/route.ts';

const KEYS = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'prototype',
  '__defineGetter__',
  'isPrototypeOf',
];
const variants = (k: string) => [k, k.toUpperCase(), encodeURIComponent(k), `${k}[]`, `${k}.json`];

/** Every request the fuzz sends: a prototype key as each parameter, and the key the router must give (or an error). */
function cases(): { uri: string; query: string; want: string | 'error' }[] {
  const out: { uri: string; query: string; want: string | 'error' }[] = [];
  for (const k of KEYS) {
    for (const v of variants(k)) {
      const e = encodeURIComponent(v);
      out.push({ uri: '/api/latest', query: `lang=${e}`, want: 'error' });
      out.push({ uri: '/api/history', query: `type=${e}`, want: 'error' });
      out.push({ uri: '/api/history', query: `lang=de&type=${e}`, want: 'error' });
      // Unknown parameters are ignored, whatever their name.
      out.push({ uri: '/api/latest', query: `${e}=1`, want: 'api/en/latest.json' });
      out.push({ uri: '/api/latest', query: `${e}=de&lang=ko`, want: 'api/ko/latest.json' });
      out.push({ uri: '/api/history', query: `${e}=global_reset`, want: 'api/en/history.json' });
      out.push({ uri: `/api/${e}`, query: '', want: 'error' });
      out.push({ uri: `/api/${e}/latest`, query: '', want: 'error' });
      out.push({ uri: `/${e}`, query: '', want: 'error' });
      // A schema name of the right shape is a key of its own (answered 404 by storage).
      out.push({
        uri: `/api/schemas/${e}`,
        query: '',
        want: /^[a-z0-9-]{1,40}\.json$/.test(v) ? `api/schemas/${v}` : 'error',
      });
    }
    // An id of the right shape is a key of its own (answered 404 by storage); one of the wrong shape is a 404 here.
    const id = k.toLowerCase();
    out.push({
      uri: `/api/events/${encodeURIComponent(k)}`,
      query: '',
      want: /^[a-z0-9][a-z0-9._-]{0,79}$/.test(k) ? `api/en/events/${k}.json` : 'error',
    });
    if (id !== k && /^[a-z0-9]/.test(id))
      out.push({ uri: `/api/events/${id}`, query: 'lang=ja', want: `api/ja/events/${id}.json` });
  }
  return out;
}

function check(r: RouteResult, want: string, label: string): void {
  if (want === 'error') {
    expect(r.kind, label).toBe('response');
    if (r.kind !== 'response') return;
    expect([400, 404], label).toContain(r.status);
    const body = JSON.parse(r.body) as { error: { status: number; code: string; message: string } };
    expect(body.error.status, label).toBe(r.status);
    expect(ERROR_CODES as readonly string[], label).toContain(body.error.code);
    expect(typeof body.error.message, label).toBe('string');
  } else {
    expect(r.kind === 'object' ? r.key : `${r.status} ${r.body}`, label).toBe(want);
  }
}

describe('prototype keys in request input', () => {
  it('are contract errors or ignored in the pure router, for every parameter', () => {
    const all = cases();
    expect(all.length).toBeGreaterThan(400);
    for (const c of all) check(route({ method: 'GET', uri: c.uri, query: c.query }), c.want, `${c.uri}?${c.query}`);
    // As method names: a 405, never a crash.
    for (const k of KEYS) {
      const r = route({ method: k, uri: '/api/latest', query: '' });
      expect(r.kind === 'response' && r.status).toBe(405);
    }
  });

  describe('over HTTP against the preview', () => {
    let preview: PreviewServer;
    beforeAll(async () => {
      const dist = await mkdtemp(path.join(os.tmpdir(), 'rsa-proto-'));
      for (const key of ['api/en/latest.json', 'api/ko/latest.json', 'api/en/history.json']) {
        await mkdir(path.dirname(path.join(dist, key)), { recursive: true });
        await writeFile(path.join(dist, key), `{"key":${JSON.stringify(key)}}`);
      }
      await mkdir(path.dirname(path.join(dist, NOT_FOUND_KEY)), { recursive: true });
      await writeFile(
        path.join(dist, NOT_FOUND_KEY),
        '{"error":{"status":404,"code":"not_found","message":"missing"},"meta":{"lang":null}}',
      );
      preview = await startPreview({ root: dist, port: 0 });
    });
    afterAll(async () => preview?.close());

    it('answers each with a JSON contract error, or the right object, never a wrong 200', async () => {
      for (const c of cases()) {
        const res = await fetch(`${preview.url}${c.uri}${c.query ? `?${c.query}` : ''}`);
        const body = (await res.json()) as { key?: string; error?: { code: string } };
        const label = `${c.uri}?${c.query}`;
        if (c.want === 'error' || !c.want.match(/latest|history\.json/)) {
          expect([400, 404], label).toContain(res.status);
          expect(ERROR_CODES as readonly string[], label).toContain(body.error?.code);
        } else {
          expect(res.status, label).toBe(200);
          expect(body.key, label).toBe(c.want);
        }
      }
    });
  });
});
