// The built CloudFront Function, run in a bare JavaScript context like the edge's with its KeyValueStore emulated from
// the store the build wrote, must answer every request exactly as the local preview does over HTTP at the same
// instant: same object key (and so the same document or the same 404), or the same status, headers and body when it
// answers itself.
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { STATUS_CODES } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EVENT_TYPES,
  JSON_CONTENT_TYPE,
  LANGS,
  NOT_FOUND_CONTENT_LANGUAGE,
  NOT_FOUND_KEY,
} from '../../builder/contract.ts';
import { startPreview, type PreviewServer } from '../../builder/edge/preview.ts';
import { createLocalEdgeStore } from '../../builder/publish/edge-store.ts';
import { createLocalSink } from '../../builder/publish/local-sink.ts';
import { run } from '../../builder/run.ts';
import { createHttpFetcher } from '../../builder/sources/http-fetcher.ts';
import { createLocalStateStore } from '../../builder/state/local-store.ts';
import { EDGE_OUTPUT, buildEdgeFunction } from '../../scripts/build-edge.ts';
import { MAX_FUNCTION_BYTES, checkCloudFrontFunction } from '../../scripts/cloudfront-rules.ts';
import { translator } from '../../builder/render/i18n.ts';
import { createTempBuild, startLoopback, trackerHandler, type LoopbackServer } from '../helpers/build.ts';
import { cases, rawRequest } from '../helpers/edge-cases.ts';
import { writeEdgeTableData } from '../helpers/paged-data.ts';

const AS_OF = new Date('2026-11-21T12:00:00Z');
/** Within the calm build's 30 minutes: every document is served as built. */
const FRESH = Date.parse('2026-11-21T12:10:00Z');

interface EdgeQueryValue {
  value: string;
  multiValue?: { value: string }[];
}
interface EdgeRequest {
  method: string;
  uri: string;
  querystring: Record<string, EdgeQueryValue>;
  headers: Record<string, { value: string }>;
  cookies: Record<string, unknown>;
}
interface EdgeResponse {
  statusCode: number;
  statusDescription: string;
  headers: Record<string, { value: string }>;
  body?: { encoding: string; data: string };
}
type Handler = (event: unknown) => Promise<EdgeRequest | EdgeResponse>;

/** The runtime's `cloudfront` module with its KeyValueStore emulated over a plain key/value map. */
function runtimeModule(store: Readonly<Record<string, string>>) {
  const has = (k: string) => Object.prototype.hasOwnProperty.call(store, k);
  return {
    kvs: () => ({
      // As documented: get() rejects for a missing key, exists() answers false.
      get: async (key: string) => {
        if (!has(key)) throw new Error(`Key ${key} not found`);
        return store[key] as string;
      },
      exists: async (key: string) => has(key),
    }),
  };
}

/**
 * Loads the bundle into a bare realm (only the ECMAScript built-ins, no eval, nothing of Node's) with the clock fixed
 * at `now`. Its first statement is the runtime import, which a script context cannot run: it becomes a variable bound
 * to the emulated module.
 */
function loadFunction(
  code: string,
  store: Readonly<Record<string, string>>,
  now: number,
): { handler: Handler; context: vm.Context } {
  const m = /^(\/\/[^\n]*\n)import ([\w$]+) from 'cloudfront';\n/.exec(code);
  if (m === null) throw new Error('the bundle does not start with its header and the runtime import');
  const context = vm.createContext(Object.create(null), { codeGeneration: { strings: false, wasm: false } });
  (context as Record<string, unknown>).__cloudfront = runtimeModule(store);
  vm.runInContext(`Date.now = function () { return ${now}; };`, context);
  vm.runInContext(`var ${m[2]} = __cloudfront;\n` + code.slice(m[0].length), context, {
    filename: 'cloudfront-function.js',
  });
  return { handler: (context as { handler: Handler }).handler, context };
}

/**
 * The viewer-request event CloudFront would build for this request line: the path as sent, and the query split into
 * still-encoded name/value pairs, repeated names collapsed into one entry with `multiValue`.
 */
function cloudFrontEvent(
  method: string,
  target: string,
): { version: string; context: { eventType: string }; viewer: { ip: string }; request: EdgeRequest } {
  const qi = target.indexOf('?');
  // No prototype, so a parameter named __proto__ or constructor is an own entry, as in CloudFront's event.
  const querystring: Record<string, EdgeQueryValue> = Object.create(null);
  if (qi !== -1) {
    for (const part of target.slice(qi + 1).split('&')) {
      if (part === '') continue;
      const eq = part.indexOf('=');
      const name = eq === -1 ? part : part.slice(0, eq);
      const value = eq === -1 ? '' : part.slice(eq + 1);
      const entry = querystring[name];
      if (entry === undefined) querystring[name] = { value };
      else (entry.multiValue ??= [{ value: entry.value }]).push({ value });
    }
  }
  return {
    version: '1.0',
    context: { eventType: 'viewer-request' },
    viewer: { ip: '127.0.0.1' },
    request: {
      method,
      uri: qi === -1 ? target : target.slice(0, qi),
      querystring,
      headers: { host: { value: 'api.example.test' } },
      cookies: {},
    },
  };
}

let tmp: string;
let dist: string;
let tracker: LoopbackServer;
let store: Record<string, string>;
let preview: PreviewServer;
let handler: Handler;
let code: string;
let eventId: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'edge-test-'));
  dist = path.join(tmp, 'dist');
  // The real build of a calm day: a reset tracker on loopback that answers, so the answer holds 30 minutes. Its data
  // has archived history pages for every type, so the table's page requests reach pages that exist.
  tracker = await startLoopback(trackerHandler(() => []));
  await run({
    now: () => AS_OF,
    fetcher: createHttpFetcher(),
    sources: [{ id: 'reset-tracker', kind: 'reset_tracker', url: `${tracker.url}/api/v1/resets` }],
    store: createLocalStateStore(path.join(tmp, 'state'), { now: () => new Date() }),
    sink: createLocalSink(dist),
    edgeStore: createLocalEdgeStore(dist),
    dataDir: await writeEdgeTableData(path.join(tmp, 'data')),
  });
  store = await createLocalEdgeStore(dist).read();
  const ids = (await readdir(path.join(dist, 'api/en/events'))).filter((f) => f.endsWith('.json')).sort();
  eventId = (ids[0] ?? '').replace(/\.json$/, '');
  preview = await startPreview({ root: dist, port: 0, now: () => FRESH });

  code = await readFile(EDGE_OUTPUT, 'utf8');
  handler = loadFunction(code, store, FRESH).handler;
});

afterAll(async () => {
  await preview?.close();
  await tracker?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('the built CloudFront Function', () => {
  it('is within the CloudFront Functions size limit', () => {
    expect(Buffer.byteLength(code, 'utf8')).toBeLessThanOrEqual(MAX_FUNCTION_BYTES);
  });

  it('is what a fresh build of builder/edge produces (the committed file is not stale)', async () => {
    expect(code).toBe(await buildEdgeFunction());
  });

  it('is a script whose only module syntax is the runtime import on its first lines, with a top-level async handler(event)', () => {
    const lines = code.split('\n');
    expect(lines[1]).toMatch(/^import [\w$]+ from 'cloudfront';$/);
    expect(code).toMatch(/(^|[;}\n])async function handler\([\w$]+\)\{/);
    // The runtime's documented rules, which this V8 sandbox cannot enforce (test/edge/cloudfront-rules.test.ts).
    expect(checkCloudFrontFunction(code)).toEqual([]);
    expect(lines.slice(2).join('\n')).not.toMatch(/^\s*(import|export)\b/m);
    expect(code).not.toMatch(/\brequire\(|\bprocess\.|\bsetTimeout\b|\bsetInterval\b|\bfetch\(|\bXMLHttpRequest\b/);
    expect(typeof handler).toBe('function');
  });

  it('runs where Node globals, timers and network do not exist', async () => {
    const { handler: h, context } = loadFunction(code, store, FRESH);
    expect(
      vm.runInContext(
        '[typeof require, typeof process, typeof setTimeout, typeof fetch, typeof Buffer].join()',
        context,
      ),
    ).toBe('undefined,undefined,undefined,undefined,undefined');
    const res = (await h({
      request: { method: 'GET', uri: '/api/latest', querystring: { lang: { value: 'de' } }, headers: {}, cookies: {} },
    })) as EdgeRequest;
    expect(res.uri).toBe('/api/de/latest.json');
  });

  it('serves the documents as published when its store is empty or unreadable', async () => {
    for (const broken of [{}, { freshness: 'not json' }, { freshness: '{"stale_after":"soon"}' }]) {
      const h = loadFunction(code, broken, Date.parse('2026-12-25T00:00:00Z')).handler;
      expect(((await h(cloudFrontEvent('GET', '/api/latest?lang=ko'))) as EdgeRequest).uri).toBe('/api/ko/latest.json');
      expect(((await h(cloudFrontEvent('GET', '/api/events/no-such-event'))) as EdgeRequest).uri).toBe(
        '/api/en/events/no-such-event.json',
      );
    }
  });

  it('rebuilds repeated parameters from multiValue, so a repeated lang is refused as at the preview', async () => {
    const res = (await handler({
      request: {
        method: 'GET',
        uri: '/api/latest',
        querystring: { lang: { value: 'de', multiValue: [{ value: 'de' }, { value: 'ja' }] } },
        headers: {},
        cookies: {},
      },
    })) as EdgeResponse;
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body?.data ?? '{}').error.code).toBe('ambiguous_parameter');
  });

  it('moves page into the URI and drops the query, so the cache keyed on the URI alone (infra/lib/edge.ts) tells pages apart', async () => {
    const uris = new Set<string>();
    for (const target of [
      '/api/history?lang=de',
      '/api/history?lang=de&page=1',
      '/api/history?page=2&lang=de',
      '/api/history?lang=de&type=global_reset&page=1',
      '/api/history?lang=de&type=banked_grant&page=1',
    ]) {
      const res = (await handler(cloudFrontEvent('GET', target))) as EdgeRequest;
      expect(res.querystring, target).toEqual({});
      expect(res.uri, target).toMatch(/^\/api\/de\/history(\/[a-z_]+)?(\/pages\/\d+)?\.json$/);
      uris.add(res.uri);
    }
    expect(uris.size).toBe(5);
  });

  it('keeps the viewer request otherwise untouched when it rewrites to an object key', async () => {
    const event = cloudFrontEvent('GET', '/api/history?type=global_reset&lang=ja&utm=1');
    const res = (await handler(event)) as EdgeRequest;
    expect(res.uri).toBe('/api/ja/history/global_reset.json');
    expect(res.querystring).toEqual({});
    expect(res.method).toBe('GET');
    expect(res.headers).toEqual({ host: { value: 'api.example.test' } });
  });
});

describe('edge and preview answer alike', () => {
  it('covers at least 50 requests, hostile ones included', () => {
    expect(cases('x').length).toBeGreaterThanOrEqual(50);
  });

  it('agrees on every request of the table', async () => {
    expect(eventId).not.toBe('');
    // The table's page requests reach archived pages that exist, of every type (and the full list's second).
    for (const key of ['api/de/history/pages/2.json', ...EVENT_TYPES.map((t) => `api/en/history/${t}/pages/1.json`)])
      expect(existsSync(path.join(dist, key)), key).toBe(true);
    const notFoundBody = await readFile(path.join(dist, NOT_FOUND_KEY), 'utf8');
    for (const c of cases(eventId)) {
      const label = `${c.method} ${c.target.length > 80 ? c.target.slice(0, 80) + '…' : c.target}`;
      // JSON round trip: plain values of this realm, whatever the vm context's prototypes.
      const edge = JSON.parse(JSON.stringify(await handler(cloudFrontEvent(c.method, c.target)))) as
        EdgeRequest | EdgeResponse;
      const http = await rawRequest(Number(new URL(preview.url).port), c.method, c.target);
      const headersOf = (h: Record<string, string>) => ({
        'content-type': h['content-type'],
        'content-language': h['content-language'],
        'cache-control': h['cache-control'],
        'access-control-allow-origin': h['access-control-allow-origin'],
      });

      if ('statusCode' in edge) {
        expect(edge.statusCode, label).toBe(c.want);
        expect(edge.statusDescription, label).toBe(STATUS_CODES[edge.statusCode]);
        expect(http.status, label).toBe(edge.statusCode);
        const edgeHeaders: Record<string, string> = {};
        for (const [k, v] of Object.entries(edge.headers)) edgeHeaders[k] = v.value;
        expect(headersOf(http.headers), label).toEqual(headersOf(edgeHeaders));
        expect(http.headers['allow'], label).toBe(edgeHeaders['allow']);
        if (c.method !== 'HEAD') expect(http.body, label).toBe(edge.body?.data ?? '');
        if (edge.body !== undefined) expect(edge.body.encoding, label).toBe('text');
        continue;
      }

      expect(`${edge.uri}`, label).toBe(`/${c.want}`);
      expect(edge.querystring, label).toEqual({});
      expect(edge.method, label).toBe(c.method);
      const key = edge.uri.slice(1);
      const file = path.join(dist, key);
      if (existsSync(file)) {
        const lang = key.split('/')[1] ?? '';
        expect(http.status, label).toBe(200);
        expect(headersOf(http.headers), label).toEqual({
          'content-type': key.endsWith('.html') ? 'text/html; charset=utf-8' : JSON_CONTENT_TYPE,
          'content-language': (LANGS as readonly string[]).includes(lang) ? lang : 'en',
          'cache-control': 'public, max-age=30',
          'access-control-allow-origin': '*',
        });
        if (c.method !== 'HEAD') expect(http.body, label).toBe(await readFile(file, 'utf8'));
      } else {
        expect(http.status, label).toBe(404);
        expect(headersOf(http.headers), label).toEqual({
          'content-type': JSON_CONTENT_TYPE,
          'content-language': NOT_FOUND_CONTENT_LANGUAGE,
          'cache-control': 'public, max-age=30',
          'access-control-allow-origin': '*',
        });
        if (c.method !== 'HEAD') expect(http.body, label).toBe(notFoundBody);
      }
    }
  });
});

describe('edge and preview agree on the clock', () => {
  // [instant, the variant the latest and status documents come from]
  const instants: [string, string | null][] = [
    ['2026-11-21T12:29:59.999Z', null],
    ['2026-11-21T12:30:00.000Z', '2026-11-21'],
    ['2026-11-21T23:59:59.999Z', '2026-11-21'],
    ['2026-11-22T00:00:00.000Z', '2026-11-22'],
    ['2026-11-23T08:00:00.000Z', '2026-11-23'],
    ['2026-11-24T23:59:59.999Z', '2026-11-24'],
    // Past the dates the build published variants for: the dateless one, never a wrong day.
    ['2026-11-25T00:00:00.000Z', 'stopped'],
    ['2026-12-01T08:00:00.000Z', 'stopped'],
  ];

  // The forecast, issued at 12:00, holds until 13:00 whatever today's answer: from then on its expired variant.
  const forecastExpired = (now: number) => now >= Date.parse('2026-11-21T13:00:00Z');

  it.each(instants)('at %s both serve latest, status and the page from %s (null: as built)', async (iso, variant) => {
    const now = Date.parse(iso);
    const h = loadFunction(code, store, now).handler;
    const p = await startPreview({ root: dist, port: 0, now: () => now });
    try {
      for (const lang of ['en', 'de', 'zh']) {
        for (const endpoint of ['latest', 'status', 'forecast']) {
          const target = `/api/${endpoint}?lang=${lang}`;
          const edge = (await h(cloudFrontEvent('GET', target))) as EdgeRequest;
          const key =
            endpoint === 'forecast'
              ? forecastExpired(now)
                ? `api/${lang}/unknown/forecast.json`
                : `api/${lang}/forecast.json`
              : variant !== null
                ? `api/${lang}/unknown/${variant}/${endpoint}.json`
                : `api/${lang}/${endpoint}.json`;
          expect(edge.uri, target).toBe(`/${key}`);
          const http = await rawRequest(Number(new URL(p.url).port), 'GET', target);
          expect(http.status, target).toBe(200);
          expect(http.body, target).toBe(await readFile(path.join(dist, key), 'utf8'));
          if (endpoint === 'forecast' && forecastExpired(now))
            expect(JSON.parse(http.body)).toMatchObject({ probability_24h: null, probability_48h: null });
          if (variant !== null && endpoint !== 'forecast')
            expect(JSON.parse(http.body)).toMatchObject({
              reset: null,
              today: { state: 'unknown', date: variant === 'stopped' ? null : variant },
            });
        }
        // The human page, made from the same variants.
        const page = (await h(cloudFrontEvent('GET', `/${lang}/`))) as EdgeRequest;
        const pageKey = variant !== null ? `api/${lang}/unknown/${variant}/index.html` : `api/${lang}/index.html`;
        expect(page.uri, `/${lang}/`).toBe(`/${pageKey}`);
        const http = await rawRequest(Number(new URL(p.url).port), 'GET', `/${lang}/`);
        expect(http.status, `/${lang}/`).toBe(200);
        expect(http.body, `/${lang}/`).toBe(await readFile(path.join(dist, pageKey), 'utf8'));
      }
    } finally {
      await p.close();
    }
  });
});

// Issue #40 as measured: a build on 2026-09-08 at 12:00, whose bundled history gives the forecast probabilities, read
// through the built function and the preview from 5 minutes later to 10 days later, in every language.
describe("the forecast's own stale_after, through the built function and the preview", () => {
  let built: string;
  let values: Record<string, string>;
  beforeAll(async () => {
    const b = await createTempBuild({ edgeStore: true });
    await b.build('2026-09-08T12:00:00Z', [
      { id: 'reset-tracker', kind: 'reset_tracker', url: `${tracker.url}/api/v1/resets` },
    ]);
    built = b.outDir;
    values = await createLocalEdgeStore(built).read();
    expect(JSON.parse(values['freshness']!).forecast_stale_after).toBe('2026-09-08T13:00:00Z');
  });

  it.each([
    ['2026-09-08T12:05:00.000Z', false],
    ['2026-09-08T12:59:59.999Z', false],
    ['2026-09-08T13:00:00.001Z', true],
    ['2026-09-11T12:00:00.000Z', true],
    ['2026-09-18T12:00:00.000Z', true],
  ] as const)('at %s (expired: %s) both serve the same forecast in every language', async (iso, expired) => {
    const now = Date.parse(iso);
    const h = loadFunction(code, values, now).handler;
    const p = await startPreview({ root: built, port: 0, now: () => now });
    try {
      for (const lang of LANGS) {
        const target = `/api/forecast?lang=${lang}`;
        const key = expired ? `api/${lang}/unknown/forecast.json` : `api/${lang}/forecast.json`;
        expect(((await h(cloudFrontEvent('GET', target))) as EdgeRequest).uri, target).toBe(`/${key}`);
        const http = await rawRequest(Number(new URL(p.url).port), 'GET', target);
        expect(http.status, target).toBe(200);
        expect(http.headers['content-language'], target).toBe(lang);
        expect(http.body, target).toBe(await readFile(path.join(built, key), 'utf8'));
        const doc = JSON.parse(http.body);
        if (expired) {
          expect(doc).toMatchObject({ probability_24h: null, probability_48h: null, base_rate_24h: null });
          expect(doc.explanation).toBe(
            translator(lang)('forecast:expired', {
              issued_at: '2026-09-08T12:00:00Z',
              since: '2026-09-08T13:00:00Z',
              hold_minutes: 60,
            }),
          );
        } else {
          expect(doc.probability_24h).toBeGreaterThan(0);
          expect(doc.probability_48h).toBeGreaterThan(0);
        }
        // The page: no probability in the copy served once the forecast has expired.
        const page = ((await h(cloudFrontEvent('GET', `/${lang}/`))) as EdgeRequest).uri.slice(1);
        const html = await readFile(path.join(built, page), 'utf8');
        expect((await rawRequest(Number(new URL(p.url).port), 'GET', `/${lang}/`)).body).toBe(html);
        expect(html.includes(`<dd id="p24" class="big none">`), page).toBe(expired);
      }
    } finally {
      await p.close();
    }
  });
});
