// The public contract, checked over HTTP against every host of a real build: the preview server and the Cloudflare
// Worker in workerd (test/helpers/targets.ts). One suite, run once per target.
import { mkdir, readFile, writeFile, cp, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES, LANGS } from '../../builder/contract.ts';
import { MAX_QUERY_LENGTH, MAX_URI_LENGTH } from '../../builder/edge/route.ts';
import { DOCUMENT_SCHEMAS } from '../../builder/render/schemas.ts';
import {
  DATA_DIR,
  createTempBuild,
  startLoopback,
  trackerHandler,
  type LoopbackServer,
  type TempBuild,
} from '../helpers/build.ts';
import { TARGETS, startTarget, type ServedApi } from '../helpers/targets.ts';

const NOW = '2026-11-21T12:00:00Z';
const ENDPOINTS = ['latest', 'history', 'forecast', 'status', 'signals', 'accuracy'] as const;
const SCHEMA_OF = {
  latest: 'latest',
  history: 'history',
  forecast: 'forecast',
  status: 'status',
  signals: 'signals',
  accuracy: 'accuracy',
} as const;

let b: TempBuild;
let tracker: LoopbackServer;
let trackerUp = true;

beforeAll(async () => {
  tracker = await startLoopback((req, res) => {
    if (!trackerUp) {
      res.writeHead(503);
      res.end();
      return;
    }
    trackerHandler(() => [])(req, res);
  });
  b = await createTempBuild();
  const summary = await b.build(NOW, [
    { id: 'reset-tracker', kind: 'reset_tracker', url: `${tracker.url}/api/v1/resets` },
  ]);
  expect(summary.today).toBe('no_verified_reset');
});
afterAll(async () => {
  await tracker?.close();
});

describe.each(TARGETS)('through the %s', (target) => {
  let api: ServedApi;
  const getJson = async (p: string, init?: RequestInit) => {
    const res = await fetch(api.url + p, init);
    const text = await res.text();
    return { res, text, body: text ? (JSON.parse(text) as any) : null };
  };
  beforeAll(async () => {
    api = await startTarget(target, b.outDir);
  });
  afterAll(async () => {
    await api?.close();
  });

  describe('every endpoint in every language', () => {
    it('answers 200 with the contract headers and a body that matches its schema', async () => {
      for (const ep of ENDPOINTS) {
        for (const lang of LANGS) {
          const { res, body } = await getJson(`/api/${ep}?lang=${lang}`);
          expect(res.status, `${ep} ${lang}`).toBe(200);
          expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
          expect(res.headers.get('content-language')).toBe(lang);
          expect(res.headers.get('cache-control')).toBe('public, max-age=30');
          expect(res.headers.get('access-control-allow-origin')).toBe('*');
          expect(body.meta.lang).toBe(lang);
          expect(DOCUMENT_SCHEMAS[SCHEMA_OF[ep]].safeParse(body).success, `${ep} ${lang} schema`).toBe(true);
        }
      }
    });

    it('defaults to English without lang, whatever Accept-Language says', async () => {
      const { res, body } = await getJson('/api/latest', { headers: { 'accept-language': 'de-DE,de;q=0.9' } });
      expect(res.headers.get('content-language')).toBe('en');
      expect(body.meta.lang).toBe('en');
    });

    it('serves every event and every history type in every language', async () => {
      const { body: history } = await getJson('/api/history');
      expect(history.count).toBeGreaterThanOrEqual(58);
      for (const type of EVENT_TYPES) {
        const { res, body } = await getJson(`/api/history?type=${type}&lang=ko`);
        expect(res.status).toBe(200);
        expect(body.type).toBe(type);
        expect(body.events.every((e: { type: string }) => e.type === type)).toBe(true);
      }
      for (const e of history.events.slice(0, 5)) {
        for (const lang of LANGS) {
          const { res, body } = await getJson(`/api/events/${e.id}?lang=${lang}`);
          expect(res.status).toBe(200);
          expect(body.event.id).toBe(e.id);
        }
      }
    });
  });

  describe('translation', () => {
    it('translates titles, summaries, scope and explanations; keeps ids, enums, times, numbers and evidence identical', async () => {
      const en = (await getJson('/api/history?lang=en')).body;
      for (const lang of LANGS.filter((l) => l !== 'en')) {
        const other = (await getJson(`/api/history?lang=${lang}`)).body;
        expect(other.count).toBe(en.count);
        en.events.forEach((e: any, i: number) => {
          const o = other.events[i];
          for (const k of [
            'id',
            'type',
            'status',
            'reason',
            'origin',
            'time_precision',
            'time_basis',
            'occurred_at',
            'announced_at',
            'effective_at',
            'evidence_text',
            'sources',
            'same_as',
          ]) {
            expect(o[k], `${lang} ${e.id} ${k}`).toEqual(e[k]);
          }
          for (const k of ['title', 'summary', 'scope']) expect(o[k], `${lang} ${e.id} ${k}`).not.toBe(e[k]);
        });
        expect(other.coverage.note).not.toBe(en.coverage.note);
        expect(other.coverage.since).toBe(en.coverage.since);
      }
      const fEn = (await getJson('/api/forecast?lang=en')).body;
      for (const lang of LANGS.filter((l) => l !== 'en')) {
        const f = (await getJson(`/api/forecast?lang=${lang}`)).body;
        expect(f.explanation).not.toBe(fEn.explanation);
        for (const k of ['probability_24h', 'probability_48h', 'sample_size', 'model_version', 'issued_at'])
          expect(f[k]).toEqual(fEn[k]);
        const s = (await getJson(`/api/status?lang=${lang}`)).body;
        const sEn = (await getJson('/api/status?lang=en')).body;
        expect(s.today.explanation).not.toBe(sEn.today.explanation);
        expect(s.today.state).toBe(sEn.today.state);
        expect(s.source_checks.map((c: any) => c.detail_code)).toEqual(
          sEn.source_checks.map((c: any) => c.detail_code),
        );
      }
    });
  });

  describe('lang and type parameters', () => {
    it('lang=fr, lang= and lang=de&lang=ko are 400 with an English JSON error', async () => {
      for (const q of ['lang=fr', 'lang=', 'lang=de&lang=ko']) {
        const { res, body } = await getJson(`/api/latest?${q}`);
        expect(res.status, q).toBe(400);
        expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(res.headers.get('content-language')).toBe('en');
        expect(res.headers.get('access-control-allow-origin')).toBe('*');
        expect(DOCUMENT_SCHEMAS.error.safeParse(body).success).toBe(true);
      }
    });

    it('lang=EN is English', async () => {
      const { res, body } = await getJson('/api/latest?lang=EN');
      expect(res.status).toBe(200);
      expect(body.meta.lang).toBe('en');
    });

    it('an unknown type is a 400 naming the valid types in the selected language', async () => {
      const { res, body } = await getJson('/api/history?type=boost&lang=zh');
      expect(res.status).toBe(400);
      expect(res.headers.get('content-language')).toBe('zh');
      expect(body.error.message).toContain('未知的事件类型');
      for (const t of EVENT_TYPES) expect(body.error.message).toContain(t);
    });

    it('an unknown event id is a 404 with the message in every language; a malformed one in the selected language', async () => {
      const missing = await getJson('/api/events/ledger-1999-01-01-0000?lang=de');
      expect(missing.res.status).toBe(404);
      expect(missing.body.error.messages.de).toBe('Die angeforderte Ressource existiert nicht.');
      expect(Object.keys(missing.body.error.messages)).toEqual([...LANGS]);
      const bad = await getJson('/api/events/Bad_ID?lang=de');
      expect(bad.res.status).toBe(404);
      expect(bad.body.error.message).toContain('Ereignis');
    });

    it('HEAD has the headers and no body; OPTIONS is a 204 preflight; POST is a 405', async () => {
      const head = await fetch(api.url + '/api/latest?lang=ja', { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-language')).toBe('ja');
      expect(await head.text()).toBe('');
      const opt = await fetch(api.url + '/api/latest', { method: 'OPTIONS' });
      expect(opt.status).toBe(204);
      expect(opt.headers.get('access-control-allow-origin')).toBe('*');
      // A server may close the connection after answering without reading the request body, and workerd does so
      // without a `Connection: close`; this request closes its own, so the next one never lands on a closing socket.
      const post = await getJson('/api/latest', { method: 'POST', body: '{}', headers: { connection: 'close' } });
      expect(post.res.status).toBe(405);
      expect(post.body.error.code).toBe('method_not_allowed');
    });
  });

  describe('limits and unknown paths', () => {
    it('a path or query over the limits is a 414 with an English JSON error', async () => {
      for (const p of [`/api/${'a'.repeat(MAX_URI_LENGTH)}`, `/api/latest?lang=de&x=${'a'.repeat(MAX_QUERY_LENGTH)}`]) {
        const { res, body } = await getJson(p);
        expect(res.status, p.slice(0, 40)).toBe(414);
        expect(res.headers.get('content-language')).toBe('en');
        expect(res.headers.get('access-control-allow-origin')).toBe('*');
        expect(body.error.code).toBe('request_too_long');
        expect(DOCUMENT_SCHEMAS.error.safeParse(body).success).toBe(true);
      }
    });

    it('an unknown path is a 404 in the selected language; a path outside the API too', async () => {
      const api404 = await getJson('/api/nope?lang=de');
      expect(api404.res.status).toBe(404);
      expect(api404.res.headers.get('content-language')).toBe('de');
      expect(api404.body.error).toMatchObject({ status: 404, code: 'not_found' });
      expect(api404.body.error.message).toContain('/api/nope');
      const outside = await getJson('/state/state.json');
      expect(outside.res.status).toBe(404);
      expect(outside.body.error.code).toBe('not_found');
    });
  });

  describe('requests Node itself refuses', () => {
    it('a raw non-ASCII byte in the path gets the contract JSON 400, not a bare one', async () => {
      const { connect } = await import('node:net');
      const { port } = new URL(api.url);
      const raw = await new Promise<string>((resolve, reject) => {
        const sock = connect(Number(port), '127.0.0.1', () => {
          sock.write(
            Buffer.concat([
              Buffer.from('GET /api/'),
              Buffer.from([0xc3, 0xa9]),
              Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n'),
            ]),
          );
        });
        let out = '';
        sock.on('data', (d) => (out += d.toString('utf8')));
        sock.on('end', () => resolve(out));
        sock.on('error', reject);
      });
      const [head, body] = raw.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 400/);
      expect(head).toMatch(/content-type: application\/json; charset=utf-8/i);
      expect(head).toMatch(/access-control-allow-origin: \*/i);
      expect(head).toMatch(/content-language: en/i);
      expect(JSON.parse(body!).error.code).toBe('invalid_path');
    });
  });

  describe('null semantics and states', () => {
    it('reset is false only after a fresh good check, and null (never false) when sources fail or go stale', async () => {
      const fresh = (await getJson('/api/latest')).body;
      expect(fresh.reset).toBe(false);
      expect(fresh.today.state).toBe('no_verified_reset');

      trackerUp = false;
      const other = await createTempBuild();
      await cp(b.stateDir, other.stateDir, { recursive: true });
      await other.build('2026-11-21T12:31:00.000Z', [
        { id: 'reset-tracker', kind: 'reset_tracker', url: `${tracker.url}/api/v1/resets` },
      ]);
      trackerUp = true;
      const stalePreview = await startTarget(target, other.outDir);
      try {
        const stale = (await (await fetch(stalePreview.url + '/api/latest')).json()) as any;
        expect(stale.reset).toBeNull();
        expect(stale.today.state).toBe('unknown');
        expect(stale.today.last_good_check_at).toBe(NOW);
        const status = (await (await fetch(stalePreview.url + '/api/status?lang=de')).json()) as any;
        const check = status.source_checks.find((c: any) => c.source === 'reset-tracker');
        expect(check).toMatchObject({ ok: false, http_status: 503, affects_today: true });
      } finally {
        await stalePreview.close();
      }
    });

    it('probability_24h is null, never 0, when the data is too thin', async () => {
      const thin = await mkdtemp(path.join(tmpdir(), 'rsa-thin-'));
      await mkdir(path.join(thin, 'archive'), { recursive: true });
      const doc = JSON.parse(await readFile(path.join(DATA_DIR, 'archive', 'codex-reset-ledger.json'), 'utf8'));
      doc.records = doc.records.slice(0, 2);
      await writeFile(path.join(thin, 'archive', 'codex-reset-ledger.json'), JSON.stringify(doc));
      const t = await createTempBuild();
      await t.build(NOW, [], thin);
      const p = await startTarget(target, t.outDir);
      try {
        const f = (await (await fetch(p.url + '/api/forecast?lang=ko')).json()) as any;
        expect(f.probability_24h).toBeNull();
        expect(f.probability_48h).toBeNull();
        expect(f.sample_size).toBeLessThan(10);
        expect(f.explanation.length).toBeGreaterThan(0);
        const l = (await (await fetch(p.url + '/api/latest')).json()) as any;
        expect(l.reset).toBeNull();
        expect(l.today.state).toBe('unknown');
      } finally {
        await p.close();
      }
      const full = (await getJson('/api/forecast')).body;
      expect(full.probability_24h).toBeGreaterThan(0);
      expect(full.probability_24h).toBeLessThan(1);
      expect(full.probability_48h).toBeGreaterThanOrEqual(full.probability_24h);
    });
  });

  describe('documents', () => {
    it('publishes an OpenAPI 3.1 document and JSON Schemas at documented paths', async () => {
      const { res, body } = await getJson('/api/openapi.json');
      expect(res.status).toBe(200);
      expect(body.openapi).toBe('3.1.0');
      expect(Object.keys(body.paths)).toEqual(
        expect.arrayContaining([
          '/api/latest',
          '/api/history',
          '/api/events/{id}',
          '/api/forecast',
          '/api/status',
          '/api/signals',
          '/api/accuracy',
        ]),
      );
      expect(body.components.schemas.Latest).toBeDefined();
      const schema = await getJson('/api/schemas/latest.json');
      expect(schema.res.status).toBe(200);
      expect(schema.body.$defs[schema.body.$ref.split('/').pop()].properties.reset).toBeDefined();
      const index = await getJson('/api/');
      expect(index.body.languages).toEqual([...LANGS]);
    });

    it('a plain static server finds the English files under readable paths', async () => {
      const latest = JSON.parse(await readFile(path.join(b.outDir, 'api/en/latest.json'), 'utf8'));
      expect(latest.meta.lang).toBe('en');
    });
  });
});
