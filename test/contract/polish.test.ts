// The contract's finer points, over HTTP against every host (the preview, the Worker in workerd) serving real builds: errors, headers a browser can
// read, the license a client can follow, open published schemas, rounded numbers, honest explanations.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, INSTANT_PATTERN } from '../../builder/contract.ts';
import { DOCUMENT_SCHEMAS } from '../../builder/render/schemas.ts';
import {
  createTempBuild,
  startLoopback,
  trackerHandler,
  type LoopbackServer,
  type TempBuild,
} from '../helpers/build.ts';
import { TARGETS, startTarget, type ServedApi } from '../helpers/targets.ts';

// With milliseconds, as a real clock reads: the documents must still say seconds.
const NOW = '2026-11-21T12:00:00.123Z';
let tracker: LoopbackServer;
let ok: TempBuild;
let failed: TempBuild;

const get = async (p: ServedApi, path: string, init?: RequestInit) => {
  const res = await fetch(p.url + path, init);
  const text = await res.text();
  return {
    res,
    text,
    body: res.headers.get('content-type')?.startsWith('application/json') && text ? (JSON.parse(text) as any) : null,
  };
};

beforeAll(async () => {
  tracker = await startLoopback((req, res) => {
    if (req.url?.startsWith('/down')) {
      res.writeHead(503);
      res.end();
    } else trackerHandler(() => [])(req, res);
  });
  ok = await createTempBuild();
  await ok.build(NOW, [{ id: 'reset-tracker', kind: 'reset_tracker', url: `${tracker.url}/api/v1/resets` }]);
  failed = await createTempBuild();
  await failed.build(NOW, [{ id: 'reset-tracker', kind: 'reset_tracker', url: `${tracker.url}/down/api/v1/resets` }]);
});
afterAll(async () => {
  await tracker?.close();
});

describe.each(TARGETS)('through the %s', (target) => {
  let up: ServedApi;
  let down: ServedApi;
  beforeAll(async () => {
    up = await startTarget(target, ok.outDir);
    down = await startTarget(target, failed.outDir);
  });
  afterAll(async () => {
    await up?.close();
    await down?.close();
  });

  describe('errors', () => {
    it('answers a 405 in the selected language, with Allow', async () => {
      const r = await get(up, '/api/latest?lang=de', { method: 'DELETE' });
      expect(r.res.status).toBe(405);
      expect(r.res.headers.get('content-language')).toBe('de');
      expect(r.res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      expect(r.body.error.code).toBe('method_not_allowed');
      expect(r.body.error.message).toContain('Methode');
    });

    it('uses one code, not_found, for a missing event whether its id is malformed or unknown', async () => {
      const unknown = await get(up, '/api/events/ledger-1999-01-01-0000?lang=ko');
      const malformed = await get(up, '/api/events/NOT_AN_ID?lang=ko');
      expect([unknown.res.status, malformed.res.status]).toEqual([404, 404]);
      expect([unknown.body.error.code, malformed.body.error.code]).toEqual(['not_found', 'not_found']);
      expect(ERROR_CODES).toContain('not_found');
    });

    it('takes type case-insensitively, as lang', async () => {
      const r = await get(up, '/api/history?type=GLOBAL_RESET&lang=JA');
      expect(r.res.status).toBe(200);
      expect(r.body.type).toBe('global_reset');
      expect(r.body.meta.lang).toBe('ja');
    });

    it('folds case in ASCII only: lang=%E2%84%AAo (Kelvin sign) is 400, not Korean; a dotless ı or long ſ is no type', async () => {
      const kelvin = await get(up, '/api/latest?lang=%E2%84%AAo');
      expect(kelvin.res.status).toBe(400);
      expect(kelvin.res.headers.get('content-language')).toBe('en');
      expect(kelvin.body.error.code).toBe('unsupported_lang');
      for (const type of ['ban%E2%84%AAed_grant', 'POL%C4%B1CY_CHANGE', 'global_re%C5%BFet']) {
        const r = await get(up, `/api/history?type=${type}&lang=ko`);
        expect(r.res.status, type).toBe(400);
        expect(r.body.error.code).toBe('unknown_type');
      }
      expect((await get(up, '/api/latest?lang=KO')).body.meta.lang).toBe('ko');
    });
  });

  describe('headers', () => {
    it('lets browser scripts read ETag, Date, Last-Modified and Content-Language on every answer', async () => {
      for (const [path, method, status] of [
        ['/api/latest', 'GET', 200],
        ['/api/events/ledger-1999-01-01-0000', 'GET', 404],
        ['/api/latest?lang=fr', 'GET', 400],
        ['/api/latest', 'PUT', 405],
        ['/api/latest', 'OPTIONS', 204],
      ] as const) {
        const res = await fetch(up.url + path, { method });
        expect(res.status, path).toBe(status);
        const exposed = (res.headers.get('access-control-expose-headers') ?? '')
          .split(',')
          .map((h) => h.trim().toLowerCase());
        for (const h of ['etag', 'date', 'last-modified', 'content-language'])
          expect(exposed, `${method} ${path}`).toContain(h);
      }
    });

    it('answers a preflight with exactly the methods the API serves', async () => {
      const res = await fetch(up.url + '/api/history?type=banked_grant', { method: 'OPTIONS' });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-methods')).toBe('GET, HEAD, OPTIONS');
    });
  });

  describe('documents', () => {
    it('gives /api a meta block and a license pointer a client can follow to the full license text', async () => {
      const index = (await get(up, '/api')).body;
      expect(index.meta).toMatchObject({
        lang: 'en',
        api_version: '1',
        docs: '/api/openapi.json',
        license_url: '/api/license.txt',
      });
      const latest = (await get(up, '/api/latest?lang=zh')).body;
      const license = await get(up, latest.meta.license_url);
      expect(license.res.status).toBe(200);
      expect(license.res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(license.text).toContain('codex-reset-ledger');
      expect(license.text).toContain('Permission is hereby granted, free of charge');
      // Every path the notice names is one the API serves: no repository path a client cannot open.
      expect(latest.meta.license).not.toMatch(/\bdata\/|\.csv\b/);
      const paths = [...String(latest.meta.license).matchAll(/(?<![\w.])\/api\/[\w./-]*[\w]/g)].map((m) => m[0]);
      expect(paths).toContain('/api/license.txt');
      for (const p of paths) expect((await get(up, p)).res.status, p).toBe(200);
    });

    it('publishes open schemas (no additionalProperties: false) while the build validates strictly', async () => {
      const index = (await get(up, '/api')).body;
      for (const p of [...index.schemas, '/api/openapi.json']) {
        const r = await get(up, p);
        expect(r.res.status, p).toBe(200);
        expect(r.text, p).not.toContain('"additionalProperties":false');
      }
      const latest = (await get(up, '/api/latest')).body;
      expect(DOCUMENT_SCHEMAS.latest.safeParse(latest).success).toBe(true);
      expect(DOCUMENT_SCHEMAS.latest.safeParse({ ...latest, surprise: 1 }).success).toBe(false);
    });

    it('publishes probabilities and scores with at most 4 decimals', async () => {
      const f = (await get(up, '/api/forecast')).body;
      for (const k of ['probability_24h', 'probability_48h', 'base_rate_24h', 'base_rate_48h']) {
        expect(typeof f[k], k).toBe('number');
        expect(String(f[k]).replace(/^0\./, '').length, `${k} ${f[k]}`).toBeLessThanOrEqual(4);
      }
    });

    it("says today's checks failed when every reset source was checked and failed, and keeps reset null on /api/status", async () => {
      for (const path of ['/api/latest', '/api/status']) {
        const d = (await get(down, path)).body;
        expect(d.reset, path).toBeNull();
        expect(d.today.state).toBe('unknown');
        expect(d.today.explanation).toContain('every check failed');
        expect(d.today.explanation).not.toContain('not been checked');
      }
      const de = (await get(down, '/api/status?lang=de')).body;
      expect(de.reset).toBeNull();
      expect(de.today.explanation).toContain('fehlgeschlagen');
    });
  });

  describe('one timestamp format', () => {
    const FRACTION = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+Z/;
    const ANY_INSTANT = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})/g;

    it('writes every instant in every JSON document, feed and page config as YYYY-MM-DDTHH:MM:SSZ, meta included', async () => {
      const files = (await readdir(path.join(ok.outDir, 'api'), { recursive: true })).filter(
        (f) => /\.(json|atom)$/.test(f) && !f.startsWith('schemas') && f !== 'openapi.json',
      );
      expect(files.length).toBeGreaterThan(50);
      let seen = 0;
      for (const f of files) {
        const text = await readFile(path.join(ok.outDir, 'api', f), 'utf8');
        for (const m of text.matchAll(ANY_INSTANT)) {
          expect(m[0], `${f}: ${m[0]}`).toMatch(INSTANT_PATTERN);
          seen++;
        }
        expect(text, f).not.toMatch(FRACTION);
      }
      expect(seen).toBeGreaterThan(100);
      const latest = (await get(up, '/api/latest?lang=de')).body;
      for (const v of [latest.meta.generated_at, latest.meta.stale_after, latest.last_source_check_at])
        expect(v).toMatch(INSTANT_PATTERN);
      const checks = (await get(up, '/api/status?lang=ko')).body.source_checks as { checked_at: string }[];
      for (const c of checks) expect(c.checked_at).toMatch(INSTANT_PATTERN);
      expect((await get(up, '/api/forecast?lang=ja')).body.issued_at).toMatch(INSTANT_PATTERN);
    });
  });
});
