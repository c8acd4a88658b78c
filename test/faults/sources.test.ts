// Fault injection, sources: every fault of the sources issue, several at once, over consecutive runs with the clock
// advancing. Pins that state never loses the last good data, that today's state follows the 30-minute staleness
// rule run by run, and that every written file stays valid JSON matching its response schema.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { State } from '../../builder/model/schemas.ts';
import { createLocalSink } from '../../builder/publish/local-sink.ts';
import { DOCUMENT_SCHEMAS, type DocumentSchemaName } from '../../builder/render/schemas.ts';
import { run, type RunSummary } from '../../builder/run.ts';
import type { SourceConfig } from '../../builder/sources/fetcher.ts';
import { createHttpFetcher } from '../../builder/sources/http-fetcher.ts';
import { createLocalStateStore } from '../../builder/state/local-store.ts';
import { DATA_DIR, startLoopback, type LoopbackServer } from '../helpers/build.ts';
import { fixture, refusedUrl } from '../sources/helpers.ts';
import { listFiles } from '../helpers/files.ts';

const T0_MS = Date.parse('2026-11-21T12:00:00Z');
const MINUTE_MS = 60_000;
const TIMEOUT_MS = 300;
const MAX_BODY_BYTES = 64 * 1024;

type Fault =
  | 'good'
  | 'refused'
  | 'timeout'
  | 'slow_body'
  | 'http_500'
  | 'rate_limited'
  | 'invalid_json'
  | 'wrong_shape'
  | 'oversize'
  | 'redirect_loop'
  | 'endless_cursor';

/** Per run: minute offset, then the fault of each source (tracker, status page, feed 1, 2, 3) and the expected today. */
const PLAN: { minute: number; faults: [Fault, Fault, Fault, Fault, Fault]; today: string }[] = [
  { minute: 0, faults: ['good', 'good', 'good', 'good', 'good'], today: 'no_verified_reset' },
  // A tracker whose cursor never ends is still a good (partial) read: it refreshes today's state.
  { minute: 15, faults: ['endless_cursor', 'http_500', 'refused', 'timeout', 'slow_body'], today: 'no_verified_reset' },
  {
    minute: 30,
    faults: ['rate_limited', 'invalid_json', 'wrong_shape', 'oversize', 'redirect_loop'],
    today: 'no_verified_reset',
  },
  // 29 minutes after the last good read it holds; from 30 minutes on it is unknown (as the edge reads stale_after).
  { minute: 44, faults: ['http_500', 'timeout', 'oversize', 'wrong_shape', 'refused'], today: 'no_verified_reset' },
  { minute: 45, faults: ['invalid_json', 'refused', 'rate_limited', 'slow_body', 'redirect_loop'], today: 'unknown' },
  { minute: 60, faults: ['good', 'good', 'good', 'good', 'good'], today: 'no_verified_reset' },
];

function schemaFor(key: string): DocumentSchemaName | null {
  if (key === 'api/index.json') return 'index';
  if (key === 'api/errors/not-found.json') return 'error';
  if (key === 'api/openapi.json' || key.startsWith('api/schemas/')) return null;
  // Follow-it documents are checked with their own parsers in test/follow; the badge's unknown variant in
  // test/edge/freshness.test.ts.
  if (
    /^api\/[a-z]{2}\/(feed\.atom|feed\.json|calendar\.ics|badge\.json|badge\.svg|unknown\/badge\.json|unknown\/badge\.svg)$/.test(
      key,
    )
  )
    return null;
  if (/^api\/[a-z]{2}\/events\//.test(key)) return 'event';
  if (/^api\/[a-z]{2}\/history(\/|\.json)/.test(key)) return 'history';
  // The live documents, the unknown variants of latest and status the edge serves once they go stale (dated, and
  // the dateless one once builds have stopped for days), and the expired forecast (undated).
  const m =
    /^api\/[a-z]{2}\/(?:unknown\/(?:(?:\d{4}-\d{2}-\d{2}|stopped)\/)?)?(latest|status|forecast|signals|accuracy)\.json$/.exec(
      key,
    );
  if (m) return m[1] as DocumentSchemaName;
  throw new Error(`unexpected file in the API: ${key}`);
}

describe('sources under every fault at once, run after run', () => {
  let server: LoopbackServer;
  let refused: string;
  let root: string;
  let cursor = 0;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'rsa-faults-sources-'));
    refused = await refusedUrl();
    const tracker = JSON.parse(fixture('tracker-page-1.json')) as { pagination: unknown };
    const goodTracker = JSON.stringify({ ...tracker, pagination: { has_more: false, next_cursor: null } });
    const status = fixture('statuspage-incidentio-summary.json');
    const feed = fixture('feed-rss.xml');
    server = await startLoopback((req: IncomingMessage, res: ServerResponse) => {
      const [, fault, kind] = (req.url ?? '').split('?')[0]!.split('/') as [string, Fault, string];
      const json = (body: string, status = 200, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(body);
      };
      switch (fault) {
        case 'good':
          if (kind === 'tracker') return json(goodTracker);
          if (kind === 'status') return json(status);
          res.writeHead(200, { 'content-type': 'application/rss+xml' });
          return res.end(feed);
        case 'timeout':
          return; // never answers
        case 'slow_body': {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{');
          const timer = setInterval(() => res.write(' '), 50);
          res.on('close', () => clearInterval(timer));
          return;
        }
        case 'http_500':
          return json('{"error":"boom"}', 500);
        case 'rate_limited':
          return json('{}', 429, { 'retry-after': '3600' });
        case 'invalid_json':
          return kind === 'feed' ? json('<rss><channel><item>') : json('{"data": [');
        case 'wrong_shape':
          return kind === 'feed' ? json('{"version":"nope","items":"x"}') : json('{"data": {"id": 1}, "page": []}');
        case 'oversize':
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end('['.padEnd(MAX_BODY_BYTES * 2, ' ') + ']');
        case 'redirect_loop':
          res.writeHead(302, { location: req.url ?? '/' });
          return res.end();
        case 'endless_cursor':
          return json(JSON.stringify({ ...tracker, pagination: { has_more: true, next_cursor: `c${++cursor}` } }));
        default:
          return json('{}', 404);
      }
    });
  });
  afterAll(async () => {
    await server.close();
    await rm(root, { recursive: true, force: true });
  });

  it('keeps the last good data, follows the staleness rule and publishes a valid API after every run', async () => {
    const stateDir = path.join(root, 'state');
    const outDir = path.join(root, 'dist');
    const results: { run: number; source: string; fault: Fault; ok: boolean; detail: string }[] = [];
    let good: State | null = null;
    const todays: string[] = [];
    for (const [i, step] of PLAN.entries()) {
      const url = (fault: Fault, kind: string) => (fault === 'refused' ? refused : `${server.url}/${fault}/${kind}`);
      const [tracker, status, ...feeds] = step.faults;
      const sources: SourceConfig[] = [
        { id: 'reset-tracker', kind: 'reset_tracker', url: url(tracker, 'tracker') },
        { id: 'status-page', kind: 'status_page', url: url(status, 'status') },
        ...feeds.map((f, j): SourceConfig => ({ id: `feed-${j + 1}`, kind: 'signal_feed', url: url(f, 'feed') })),
      ];
      const summary: RunSummary = await run({
        now: () => new Date(T0_MS + step.minute * MINUTE_MS),
        fetcher: createHttpFetcher({
          timeoutMs: TIMEOUT_MS,
          retries: 1,
          backoffBaseMs: 10,
          maxBodyBytes: MAX_BODY_BYTES,
          deadline: Date.now() + 5_000,
        }),
        sources,
        store: createLocalStateStore(stateDir, { now: () => new Date() }),
        sink: createLocalSink(outDir),
        dataDir: DATA_DIR,
      });
      todays.push(String(summary.today));
      for (const [j, s] of summary.sources.entries())
        results.push({ run: i, source: s.id, fault: step.faults[j]!, ok: s.ok, detail: s.detail });

      const state = JSON.parse(await readFile(path.join(stateDir, 'state.json'), 'utf8')) as State;
      if (i === 0) {
        good = state;
        expect(state.upstream_events.length).toBeGreaterThan(0);
        expect(state.upstream_status).not.toBeNull();
        expect(state.signals.length).toBeGreaterThan(0);
      } else if (step.faults.some((f) => f !== 'good')) {
        // The last good events, status and signals survive every faulty run untouched.
        expect(state.upstream_events).toEqual(good!.upstream_events);
        expect(state.upstream_status).toEqual(good!.upstream_status);
        expect(state.signals.map((s) => s.id)).toEqual(expect.arrayContaining(good!.signals.map((s) => s.id)));
      }
      for (const key of await listFiles(outDir)) {
        if (!key.endsWith('.json')) continue; // api/license.txt, feeds, calendar and badge SVG are not JSON
        const name = schemaFor(key);
        const body = JSON.parse(await readFile(path.join(outDir, key), 'utf8')) as unknown;
        if (name !== null) expect(DOCUMENT_SCHEMAS[name].safeParse(body).success, key).toBe(true);
      }
    }

    const injected = results.filter((r) => r.fault !== 'good');
    console.log(
      `sources fault injection: ${injected.length} faults injected over ${PLAN.length} runs (${new Set(injected.map((r) => r.fault)).size} kinds)`,
    );
    console.table(
      injected.map((r) => ({
        run: r.run,
        minute: PLAN[r.run]!.minute,
        source: r.source,
        fault: r.fault,
        check_ok: r.ok,
        detail: r.detail,
      })),
    );
    console.log(`today by run: ${PLAN.map((p, i) => `+${p.minute}m ${todays[i]}`).join(', ')}`);

    expect(todays).toEqual(PLAN.map((p) => p.today));
    expect(new Set(injected.map((r) => r.fault)).size).toBe(10);
    for (const r of injected) {
      // The endless cursor is a partial read that still counts; every other fault is a failed check.
      if (r.fault === 'endless_cursor') expect([r.ok, r.detail]).toEqual([true, 'page_cap_reached']);
      else expect(r.ok, `${r.source} ${r.fault}`).toBe(false);
    }
    expect(results.filter((r) => r.fault === 'good').every((r) => r.ok)).toBe(true);
  });
});
