// A source cannot grow the API without bound. Through the real pipeline with a loopback tracker
// and webhook: a flooding run is quarantined (a failed check saying why in every language, one source_anomaly signal
// per source and day with the count and scheme+host only, nothing of it in state, no notification). Pure: the total
// cap on tracker events and the per-source share of the review queue.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANGS } from '../../builder/contract.ts';
import {
  ANOMALY_MAX_NEW_RESETS,
  applySourceResults,
  MAX_SIGNALS,
  MAX_SIGNALS_PER_SOURCE,
  MAX_TRACKER_EVENTS,
} from '../../builder/model/apply.ts';
import { emptyState, EventSchema, type Event, type Signal, type SourceCheck } from '../../builder/model/schemas.ts';
import { parseChannel } from '../../builder/notify/channels.ts';
import { createNotifier } from '../../builder/notify/send.ts';
import { createLocalSink } from '../../builder/publish/local-sink.ts';
import { run } from '../../builder/run.ts';
import { createHttpFetcher } from '../../builder/sources/http-fetcher.ts';
import { createLocalStateStore } from '../../builder/state/local-store.ts';
import { DATA_DIR, startLoopback, trackerHandler, type LoopbackServer } from '../helpers/build.ts';

const T0 = Date.parse('2026-11-21T12:00:00Z');
const MIN = 60_000;
const record = (id: string, at: number) => ({
  id,
  reset_type: 'regular',
  announced_at: new Date(at).toISOString(),
  text: `Reset ${id}.`,
  source: { type: 'observed', url: `https://tracker.example/r/${id}` },
});
const CALM = [record('calm-1', T0 - 120 * MIN), record('calm-2', T0 - 30 * 60 * MIN)];
/** 1,001 new records within the last 24 hours, different on every run. */
const flood = (run: number, asOf: number) =>
  Array.from({ length: 1_001 }, (_, k) => record(`flood-${run}-${k}`, asOf - MIN - k * 60_000));

let tracker: LoopbackServer;
let hook: LoopbackServer;
let answer: () => unknown[] = () => CALM;
let delivered = 0;
beforeAll(async () => {
  tracker = await startLoopback(trackerHandler(() => answer()));
  hook = await startLoopback((req, res) => {
    delivered++;
    req.resume();
    req.on('end', () => {
      res.writeHead(200);
      res.end();
    });
  });
});
afterAll(async () => {
  await tracker?.close();
  await hook?.close();
});

describe('a flooding tracker is quarantined', () => {
  it('changes nothing in state, notifies nothing, says why in the check, and leaves one signal per day with the count and scheme+host', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'rsa-anomaly-'));
    const stateFile = path.join(root, 'state', 'state.json');
    const dist = path.join(root, 'dist');
    const url = `${tracker.url}/api/v1/resets/secret-path;jsessionid=abc?token=s3cret`;
    const build = (minutes: number) => {
      const now = new Date(T0 + minutes * MIN);
      return run({
        now: () => now,
        fetcher: createHttpFetcher({ timeoutMs: 5_000, retries: 0, deadline: Date.now() + 20_000 }),
        sources: [{ id: 'reset-tracker', kind: 'reset_tracker', url }],
        store: createLocalStateStore(path.join(root, 'state'), { now: () => now }),
        sink: createLocalSink(dist),
        dataDir: DATA_DIR,
        notify: { notifier: createNotifier([parseChannel(`${hook.url}/h`)!], { timeoutMs: 2_000 }), lang: 'en' },
      });
    };
    answer = () => CALM;
    await build(0);
    const calm = JSON.parse(await readFile(stateFile, 'utf8')) as { upstream_events: Event[] };
    expect(calm.upstream_events.map((e) => e.id)).toEqual(['sr-calm-1', 'sr-calm-2']);
    expect(delivered).toBe(1);

    for (const [i, minutes] of [15, 30].entries()) {
      answer = () => flood(i, T0 + minutes * MIN);
      const s = await build(minutes);
      expect(s.sources[0]).toEqual({ id: 'reset-tracker', ok: false, detail: 'source_anomaly' });
      expect(s.notifications).toEqual({ sent: 0, failed: 0, skipped: 0 });
    }
    expect(delivered).toBe(1);
    const state = JSON.parse(await readFile(stateFile, 'utf8')) as { upstream_events: Event[]; signals: Signal[] };
    expect(state.upstream_events).toEqual(calm.upstream_events);
    const anomalies = state.signals.filter((x) => x.kind === 'source_anomaly');
    expect(anomalies).toHaveLength(1);
    expect(anomalies[0]).toMatchObject({
      id: 'source-anomaly-reset-tracker-2026-11-21',
      source: 'reset-tracker',
      count: 1_000,
      origin: tracker.url,
      review: 'awaiting_review',
    });

    const signals = await readFile(path.join(dist, 'api', 'en', 'signals.json'), 'utf8');
    expect(JSON.parse(signals).signals).toContainEqual(
      expect.objectContaining({ kind: 'source_anomaly', count: 1_000, origin: tracker.url }),
    );
    for (const secret of ['secret-path', 'jsessionid', 's3cret', '/api/v1']) expect(signals).not.toContain(secret);
    const history = JSON.parse(await readFile(path.join(dist, 'api', 'en', 'history.json'), 'utf8')) as {
      events: { id: string }[];
    };
    expect(history.events.some((e) => e.id.startsWith('sr-flood'))).toBe(false);
    for (const lang of LANGS) {
      const status = JSON.parse(await readFile(path.join(dist, 'api', lang, 'status.json'), 'utf8')) as {
        source_checks: { source: string; detail_code: string; detail: string }[];
      };
      const c = status.source_checks.find((x) => x.source === 'reset-tracker')!;
      expect(c.detail_code).toBe('source_anomaly');
      expect(c.detail).toContain('1000');
      expect(c.detail).not.toContain('source_anomaly');
    }
  }, 60_000);
});

const AS_OF = new Date(T0);
const trackerCheck = (code = 'ok'): SourceCheck => ({
  source: 'reset-tracker',
  kind: 'reset_tracker',
  url: 'https://t.example/',
  ok: true,
  http_status: 200,
  latency_ms: 1,
  items_read: 1,
  checked_at: AS_OF.toISOString(),
  detail: { code, params: {} },
});
const ev = (id: string, at: number, type: Event['type'] = 'global_reset'): Event =>
  EventSchema.parse({
    id,
    type,
    status: 'archived',
    reason: type === 'banked_grant' ? 'banked' : 'other',
    origin: 'service_resets',
    time_precision: 'second',
    time_basis: 'observation',
    announced_at: null,
    observed_at: new Date(at).toISOString().replace('.000Z', 'Z'),
    effective_at: null,
    evidence_text: 'x',
    sources: [{ platform: 'web', url: `https://t.example/${id}` }],
  });

describe('caps in state', () => {
  it(`keeps at most MAX_TRACKER_EVENTS (${MAX_TRACKER_EVENTS}) tracker events, the newest`, () => {
    // Old banked grants, a few hundred a run, under the anomaly rule: state stops growing at the cap.
    let state = { ...emptyState(), upstream_events: [ev('seed', T0 - 400 * 86_400_000)] };
    for (let r = 0; r < 6; r++) {
      const events = Array.from({ length: 400 }, (_, k) =>
        ev(`b-${r}-${k}`, T0 - (r * 400 + k + 1) * 3_600_000, 'banked_grant'),
      );
      state = applySourceResults(state, [{ check: trackerCheck('record_cap_reached'), events }], [], AS_OF);
    }
    expect(state.upstream_events).toHaveLength(MAX_TRACKER_EVENTS);
    expect(state.upstream_events[0]!.id).toBe('b-0-0');
  });

  it('lets a first run bring the whole history, but not more than a few resets of the last day', () => {
    const history = Array.from({ length: 300 }, (_, k) => ev(`h-${k}`, T0 - (k + 2) * 86_400_000));
    const recent = Array.from({ length: ANOMALY_MAX_NEW_RESETS }, (_, k) => ev(`r-${k}`, T0 - (k + 1) * 3_600_000));
    expect(
      applySourceResults(emptyState(), [{ check: trackerCheck(), events: [...recent, ...history] }], [], AS_OF)
        .upstream_events,
    ).toHaveLength(310);
    const one = [...recent, ev('r-extra', T0 - 1_800_000), ...history];
    const next = applySourceResults(emptyState(), [{ check: trackerCheck(), events: one }], [], AS_OF);
    expect(next.upstream_events).toEqual([]);
    expect(next.checks.at(-1)).toMatchObject({
      ok: false,
      detail: { code: 'source_anomaly', params: { count: ANOMALY_MAX_NEW_RESETS + 1, max: ANOMALY_MAX_NEW_RESETS } },
    });
  });

  it('never quarantines for good: a backlog older than a day is read in, and a flood stops counting once a day old', () => {
    const stored = { ...emptyState(), upstream_events: [ev('seed', T0 - 60 * 86_400_000)] };
    // A tracker back after a pause (or ids renamed by a new id rule): 50 resets new to state, none of the last day.
    const backlog = Array.from({ length: 50 }, (_, k) => ev(`old-${k}`, T0 - (k + 2) * 86_400_000));
    const read = applySourceResults(stored, [{ check: trackerCheck(), events: backlog }], [], AS_OF);
    expect(read.checks.at(-1)).toMatchObject({ ok: true });
    expect(read.upstream_events).toHaveLength(51); // the backlog, and the stored record the tracker no longer lists
    // A recent flood is quarantined, and the same records a day later are no longer news: the source is read again.
    const flood = Array.from({ length: ANOMALY_MAX_NEW_RESETS + 1 }, (_, k) => ev(`f-${k}`, T0 - (k + 1) * 60_000));
    const held = applySourceResults(stored, [{ check: trackerCheck(), events: flood }], [], AS_OF);
    expect(held.checks.at(-1)).toMatchObject({ ok: false, detail: { code: 'source_anomaly' } });
    const dayLater = new Date(T0 + 86_400_000 + 3_600_000);
    const later = applySourceResults(
      held,
      [{ check: { ...trackerCheck(), checked_at: dayLater.toISOString() }, events: flood }],
      [],
      dayLater,
    );
    expect(later.checks.at(-1)).toMatchObject({ ok: true });
    expect(later.upstream_events.map((e) => e.id)).toContain('f-0');
  });

  it('gives every source its share of the review queue: 500 signals of one feed do not push out another source', () => {
    const sig = (source: string, i: number, at: number): Signal => ({
      id: `${source}-${i}`,
      kind: 'feed_item',
      source,
      title: 't',
      excerpt: '',
      url: `https://${source}.example/${i}`,
      published_at: new Date(at).toISOString(),
      first_seen_at: AS_OF.toISOString(),
      review: 'awaiting_review',
      promoted_to: null,
    });
    const quiet = sig('quiet', 0, T0 - 2 * 86_400_000);
    const flood = Array.from({ length: MAX_SIGNALS }, (_, i) => sig('flood', i, T0 - i * 60_000));
    const feedCheck = (source: string): SourceCheck => ({ ...trackerCheck(), source, kind: 'signal_feed' });
    const next = applySourceResults(
      emptyState(),
      [
        { check: feedCheck('quiet'), signals: [quiet] },
        { check: feedCheck('flood'), signals: flood },
      ],
      [],
      AS_OF,
    );
    expect(next.signals.filter((s) => s.source === 'flood')).toHaveLength(MAX_SIGNALS_PER_SOURCE);
    expect(next.signals.map((s) => s.id)).toContain('quiet-0');
  });
});
