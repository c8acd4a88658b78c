// Fault injection, input: seeded hostile requests against the router and the preview. No 5xx, no key outside api/,
// every error valid JSON with the contract's headers.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPreview, type PreviewServer } from '../../builder/edge/preview.ts';
import { route, type RouteRequest } from '../../builder/edge/route.ts';
import { createTempBuild } from '../helpers/build.ts';

const SEED = 20261121;
const ROUTER_CASES = 5_000;
const PREVIEW_CASES = 600;
const FUZZ_NOW = '2026-11-21T12:00:00Z';

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  'api',
  'latest',
  'history',
  'events',
  'schemas',
  'status',
  '..',
  '.',
  '',
  '%2e%2e',
  '%2F',
  '%00',
  'index.json',
  'x'.repeat(90),
  '~',
  'ä',
  '%',
  'openapi.json',
  'errors',
  'not-found.json',
  'ledger-2026-09-12-0320',
  '\\',
  ';',
  'a b',
];
const QUERIES = [
  'lang=en',
  'lang=DE',
  'lang=fr',
  'lang=',
  'lang',
  'lang=en&lang=de',
  'type=global_reset',
  'type=nope',
  'type=',
  '%zz',
  'lang=%E0%A4%A',
  '&&&',
  'a=' + 'b'.repeat(1100),
  'x=1&'.repeat(25),
  'lang=<script>',
  'type=global_reset&type=banked_grant',
];
const METHODS = ['GET', 'GET', 'GET', 'HEAD', 'OPTIONS', 'POST', 'DELETE', 'PUT', 'PATCH', 'TRACE'];

function hostile(rnd: () => number): RouteRequest {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const segs = Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => pick(PIECES));
  if (rnd() < 0.7) segs[0] = 'api';
  const uri = (rnd() < 0.05 ? '' : '/') + segs.join('/') + (rnd() < 0.1 ? '/' : '');
  const query = Array.from({ length: Math.floor(rnd() * 3) }, () => pick(QUERIES)).join('&');
  return { method: pick(METHODS), uri, query };
}

const REQUIRED_HEADERS = ['content-type', 'cache-control', 'access-control-allow-origin', 'content-language'] as const;

describe('hostile input', () => {
  let preview: PreviewServer;

  beforeAll(async () => {
    const b = await createTempBuild();
    await b.build(FUZZ_NOW);
    preview = await startPreview({ root: b.outDir, port: 0 });
  });
  afterAll(async () => {
    await preview.close();
  });

  it('the router never errors, never maps outside api/, and answers errors as JSON with the contract headers', () => {
    const rnd = prng(SEED);
    const tally = new Map<string, number>();
    const started = Date.now();
    for (let i = 0; i < ROUTER_CASES; i++) {
      const req = hostile(rnd);
      const r = route(req);
      if (r.kind === 'object') {
        expect(r.key.startsWith('api/'), JSON.stringify(req)).toBe(true);
        expect(
          r.key.split('/').some((p) => p === '..' || p === '.' || p === ''),
          r.key,
        ).toBe(false);
        tally.set('object', (tally.get('object') ?? 0) + 1);
      } else {
        expect(r.status, JSON.stringify(req)).toBeLessThan(500);
        tally.set(String(r.status), (tally.get(String(r.status)) ?? 0) + 1);
        if (r.status !== 204) {
          const body = JSON.parse(r.body) as { error: { status: number; code: string; message: string } };
          expect(body.error.status).toBe(r.status);
          for (const h of REQUIRED_HEADERS) expect(r.headers[h], `${h} on ${JSON.stringify(req)}`).toBeTruthy();
        }
      }
    }
    console.log(
      `router fuzz: ${ROUTER_CASES} hostile requests (seed ${SEED}) in ${Date.now() - started} ms; results: ${[...tally]
        .sort()
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')}; 5xx=0`,
    );
    expect([...tally.keys()].some((k) => k.startsWith('5'))).toBe(false);
  });

  it('the preview never answers 5xx, and every error is JSON with the contract headers', async () => {
    const rnd = prng(SEED + 1);
    const u = new URL(preview.url);
    const tally = new Map<number, number>();
    const started = Date.now();
    for (let i = 0; i < PREVIEW_CASES; i++) {
      const req = hostile(rnd);
      // Bytes a real client would percent-encode are encoded: a raw one is refused by Node's HTTP parser before
      // any of our code runs, which is not what this test is about.
      const target = (req.uri.startsWith('/') ? req.uri : '/' + req.uri) + (req.query ? `?${req.query}` : '');
      const res = await new Promise<{
        status: number;
        headers: Record<string, string | string[] | undefined>;
        body: string;
      }>((resolve, reject) => {
        const r = request(
          {
            host: u.hostname,
            port: u.port,
            method: req.method,
            path: target.replace(/[^\x21-\x7e]|\\/g, (c) => encodeURIComponent(c)),
          },
          (m) => {
            let body = '';
            m.setEncoding('utf8');
            m.on('data', (c: string) => (body += c));
            m.on('end', () => resolve({ status: m.statusCode ?? 0, headers: m.headers, body }));
          },
        );
        r.on('error', reject);
        r.end();
      });
      tally.set(res.status, (tally.get(res.status) ?? 0) + 1);
      expect(res.status, `${req.method} ${target}`).toBeLessThan(500);
      if (res.status >= 400) {
        if (req.method !== 'HEAD')
          expect(() => JSON.parse(res.body), `${req.method} ${target}: ${res.body.slice(0, 100)}`).not.toThrow();
        for (const h of REQUIRED_HEADERS) expect(res.headers[h], `${h} on ${req.method} ${target}`).toBeTruthy();
      }
    }
    console.log(
      `preview fuzz: ${PREVIEW_CASES} hostile HTTP requests (seed ${SEED + 1}) in ${Date.now() - started} ms; statuses: ${[
        ...tally,
      ]
        .sort((a, b) => a[0] - b[0])
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')}; 5xx=0`,
    );
  });
});
