// The Cloudflare Worker target: its build refuses to package a dist/ without an https public URL (exit 2, nothing
// written); the production bundle runs in workerd (miniflare, 127.0.0.1) with the real clock and answers from its
// static assets with the contract headers, conditional requests included. The shared contract suite runs against it
// too (test/contract, test/edge/freshness.test.ts).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EDGE_FRESHNESS_KEY, EDGE_STORE_FILE, EVENT_TYPES, LANGS } from '../../builder/contract.ts';
import { WORKER_ENTRY, checkWorkerAssets } from '../../scripts/build-worker.ts';
import wrangler from '../../workers/wrangler.json' with { type: 'json' };
import {
  createTempBuild,
  startLoopback,
  trackerHandler,
  type LoopbackServer,
  type TempBuild,
} from '../helpers/build.ts';
import { cases, rawRequest } from '../helpers/edge-cases.ts';
import { writeEdgeTableData } from '../helpers/paged-data.ts';
import { startTarget, type ServedApi } from '../helpers/targets.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PUBLIC = 'https://api.example.org';

let tracker: LoopbackServer;
let local: TempBuild;
let published: TempBuild;
let tmp: string;
const open: ServedApi[] = [];

beforeAll(async () => {
  tracker = await startLoopback(trackerHandler(() => []));
  const sources = [{ id: 'reset-tracker', kind: 'reset_tracker' as const, url: `${tracker.url}/api/v1/resets` }];
  // The same build twice, as of the real clock: with the local default URL, and with a public https one.
  const now = new Date().toISOString();
  local = await createTempBuild({ edgeStore: true });
  await local.build(now, sources);
  published = await createTempBuild({ edgeStore: true, publicUrl: PUBLIC });
  await published.build(now, sources);
  tmp = await mkdtemp(path.join(os.tmpdir(), 'worker-build-'));
});

afterAll(async () => {
  await Promise.all(open.map((s) => s.close()));
  await tracker?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const buildWorker = (assets: string, out: string) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build-worker.ts', '--assets', assets, '--out', out], {
    cwd: ROOT,
    encoding: 'utf8',
  });

describe('npm run build:worker', () => {
  it('refuses a dist/ built without an https RESET_PUBLIC_BASE_URL: configuration error, exit 2, nothing written', async () => {
    const out = path.join(tmp, 'refused/worker.js');
    const r = buildWorker(local.outDir, out);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/configuration error: .* built without an absolute https:\/\/ RESET_PUBLIC_BASE_URL/);
    expect(existsSync(path.dirname(out))).toBe(false);
    expect(await checkWorkerAssets(local.outDir)).toMatch(/"\/"/);
  });

  it('refuses a directory that is not a finished build', async () => {
    const r = buildWorker(tmp, path.join(tmp, 'none/worker.js'));
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('is not a finished build');
    expect(existsSync(path.join(tmp, 'none'))).toBe(false);
  });

  it('packages a dist/ built with the public URL, whose feeds carry it', async () => {
    expect(await checkWorkerAssets(published.outDir)).toBeNull();
    expect(await readFile(path.join(published.outDir, 'api/de/feed.atom'), 'utf8')).toContain(PUBLIC);
    const out = path.join(tmp, 'ok/worker.js');
    const r = buildWorker(published.outDir, out);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const code = await readFile(out, 'utf8');
    expect(code).toMatch(/export\s*\{[^}]*default/);
    expect(code).not.toMatch(/^import /m);
  });

  it('deploys with the settings the tests run: assets first through the Worker, no HTML or 404 rewriting', () => {
    expect(wrangler.main).toBe('dist/worker.js');
    expect(wrangler.assets).toEqual({
      directory: '../dist',
      binding: 'ASSETS',
      run_worker_first: true,
      html_handling: 'none',
      not_found_handling: 'none',
    });
    expect(JSON.stringify(wrangler)).not.toContain('FIXED_NOW');
  });
});

describe('the production Worker in workerd', () => {
  let api: ServedApi;
  beforeAll(async () => {
    api = await startTarget('worker', published.outDir, undefined, WORKER_ENTRY);
    open.push(api);
  });

  it('reads the real clock: a build of a moment ago answers as built', async () => {
    const res = await fetch(`${api.url}/api/latest?lang=ja`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { today: { state: string }; meta: { lang: string } };
    expect(body.meta.lang).toBe('ja');
    expect(body.today.state).toBe('no_verified_reset');
    const store = JSON.parse(await readFile(path.join(published.outDir, EDGE_STORE_FILE), 'utf8')) as Record<
      string,
      string
    >;
    expect(Date.parse(JSON.parse(store[EDGE_FRESHNESS_KEY] ?? '{}').stale_after)).toBeGreaterThan(Date.now());
  });

  it('serves the bytes of the asset with the contract headers and a validator, and answers its If-None-Match with 304', async () => {
    const res = await fetch(`${api.url}/api/status?lang=de`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(await readFile(path.join(published.outDir, 'api/de/status.json'), 'utf8'));
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('content-language')).toBe('de');
    expect(res.headers.get('cache-control')).toBe('public, max-age=30');
    const etag = res.headers.get('etag');
    expect(etag).toBeTruthy();
    const again = await fetch(`${api.url}/api/status?lang=de`, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(again.headers.get('content-language')).toBe('de');
    expect(await again.text()).toBe('');
  });

  it('never serves the edge store or anything outside the routes', async () => {
    for (const p of ['/edge-store.json', '/api/../edge-store.json', '/api/errors/not-found.json']) {
      const res = await fetch(api.url + p);
      expect(res.status, p).not.toBe(200);
      expect(await res.text(), p).not.toContain(EDGE_FRESHNESS_KEY);
    }
  });
});

describe('the production Worker, a forecast past its own stale_after', () => {
  // Built as of 61 minutes ago by the real clock (the forecast holds an hour): the production entry, reading Date.now(),
  // serves the expired forecast in every language.
  let api: ServedApi;
  let old: TempBuild;
  beforeAll(async () => {
    old = await createTempBuild({ edgeStore: true, publicUrl: PUBLIC });
    await old.build(new Date(Date.now() - 61 * 60_000).toISOString(), [
      { id: 'reset-tracker', kind: 'reset_tracker', url: `${tracker.url}/api/v1/resets` },
    ]);
    api = await startTarget('worker', old.outDir, undefined, WORKER_ENTRY);
    open.push(api);
  });

  it('answers /api/forecast with the expired forecast, no probability, in every language', async () => {
    for (const lang of LANGS) {
      const res = await fetch(`${api.url}/api/forecast?lang=${lang}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-language')).toBe(lang);
      const text = await res.text();
      expect(text).toBe(await readFile(path.join(old.outDir, `api/${lang}/unknown/forecast.json`), 'utf8'));
      const doc = JSON.parse(text) as { probability_24h: null; probability_48h: null; meta: { stale_after: string } };
      expect(doc.probability_24h).toBeNull();
      expect(doc.probability_48h).toBeNull();
      expect(Date.parse(doc.meta.stale_after)).toBeLessThan(Date.now());
    }
  });
});

describe('the Worker and the preview answer alike', () => {
  // The CloudFront Function's table (hostile requests included), sent raw to both hosts of one build at one instant.
  const FRESH = Date.parse('2026-11-21T12:10:00Z');
  let calm: TempBuild;
  let worker: ServedApi;
  let preview: ServedApi;
  let eventId: string;
  beforeAll(async () => {
    calm = await createTempBuild({ edgeStore: true, publicUrl: PUBLIC });
    // With archived history pages for every type, so the table's page requests reach pages that exist.
    const data = await writeEdgeTableData(path.join(tmp, 'table-data'));
    await calm.build(
      '2026-11-21T12:00:00.000Z',
      [{ id: 'reset-tracker', kind: 'reset_tracker', url: `${tracker.url}/api/v1/resets` }],
      data,
    );
    const store = JSON.parse(await readFile(path.join(calm.outDir, EDGE_STORE_FILE), 'utf8')) as Record<string, string>;
    eventId = (Object.keys(store).find((k) => k.startsWith('e:')) ?? '').slice(2);
    worker = await startTarget('worker', calm.outDir, FRESH);
    preview = await startTarget('preview', calm.outDir, FRESH);
    open.push(worker, preview);
  });

  it('on every request of the edge table: status, contract headers and body', async () => {
    expect(eventId).not.toBe('');
    // The table's page requests reach archived pages that exist, of every type (and the full list's second).
    for (const key of ['api/de/history/pages/2.json', ...EVENT_TYPES.map((t) => `api/en/history/${t}/pages/1.json`)])
      expect(existsSync(path.join(calm.outDir, key)), key).toBe(true);
    const pick = (h: Record<string, string>) => ({
      'content-type': h['content-type'],
      'content-language': h['content-language'],
      'cache-control': h['cache-control'],
      'access-control-allow-origin': h['access-control-allow-origin'],
      'access-control-expose-headers': h['access-control-expose-headers'],
      allow: h['allow'],
    });
    for (const c of cases(eventId)) {
      const label = `${c.method} ${c.target.length > 80 ? c.target.slice(0, 80) + '…' : c.target}`;
      const w = await rawRequest(Number(new URL(worker.url).port), c.method, c.target);
      // workerd hands the Worker the target as a URL, dot segments resolved (%2e%2e too): the Worker then answers what
      // the preview answers for that resolved target (a 404 where the preview says 400 invalid_path; both refuse).
      const resolved = new URL('http://h' + c.target);
      const seen = resolved.pathname + resolved.search;
      const p = await rawRequest(Number(new URL(preview.url).port), c.method, seen);
      expect(w.status, label).toBe(p.status);
      if (typeof c.want === 'number' && seen === c.target) expect(w.status, label).toBe(c.want);
      expect(pick(w.headers), label).toEqual(pick(p.headers));
      expect(w.body, label).toBe(p.body);
    }
  });
});
