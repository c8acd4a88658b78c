// Notifications exactly once and bounded, through the real pipeline: a loopback tracker, a
// loopback webhook, runs 15 minutes apart with the state kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { NotifyLog } from '../../builder/model/schemas.ts';
import { parseChannel } from '../../builder/notify/channels.ts';
import { NOTIFY_MAX_PER_RUN, planNotifications, recordOutcomes, SENT_LOG_KEEP_MS } from '../../builder/notify/plan.ts';
import { EventSchema, type Announcement } from '../../builder/model/schemas.ts';
import type { TodayStatus } from '../../builder/model/status.ts';
import { createNotifier } from '../../builder/notify/send.ts';
import { createLocalSink } from '../../builder/publish/local-sink.ts';
import { run } from '../../builder/run.ts';
import { createHttpFetcher } from '../../builder/sources/http-fetcher.ts';
import { createLocalStateStore } from '../../builder/state/local-store.ts';
import { DATA_DIR, startLoopback, trackerHandler, type LoopbackServer } from '../helpers/build.ts';

const T0 = Date.parse('2026-11-21T12:00:00Z');
const MIN = 60_000;
// Eight resets in the last eight hours: more than one run may send one by one, few enough not to be an anomaly.
const RECORDS = Array.from({ length: 8 }, (_, k) => ({
  id: `burst-${k}`,
  reset_type: 'regular',
  announced_at: new Date(T0 - (k + 1) * 60 * MIN).toISOString(),
  text: `Reset number ${k}.`,
  source: { type: 'observed', url: `https://tracker.example/burst/${k}` },
}));

interface Received {
  key: string;
  kind: string;
  title: string;
}
let tracker: LoopbackServer;
let hook: LoopbackServer;
let received: Received[] = [];
/** Digests the receiver answers 503 to (it still sees them). */
let refuseDigests = 0;

beforeAll(async () => {
  tracker = await startLoopback(trackerHandler(() => RECORDS));
  hook = await startLoopback((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const m = JSON.parse(body) as { kind: string; title: string };
      received.push({ key: String(req.headers['idempotency-key']), kind: m.kind, title: m.title });
      const refuse = m.kind === 'digest' && refuseDigests > 0;
      if (refuse) refuseDigests--;
      res.writeHead(refuse ? 503 : 200);
      res.end();
    });
  });
});
afterAll(async () => {
  await tracker?.close();
  await hook?.close();
});

async function builder() {
  const root = await mkdtemp(path.join(tmpdir(), 'rsa-storm-notify-'));
  const channel = parseChannel(`${hook.url}/h`)!;
  return (minutes: number) => {
    const now = new Date(T0 + minutes * MIN);
    return run({
      now: () => now,
      fetcher: createHttpFetcher({ timeoutMs: 2_000, retries: 0, deadline: Date.now() + 10_000 }),
      sources: [{ id: 'reset-tracker', kind: 'reset_tracker', url: `${tracker.url}/api/v1/resets` }],
      store: createLocalStateStore(path.join(root, 'state'), { now: () => now }),
      sink: createLocalSink(path.join(root, 'dist')),
      dataDir: DATA_DIR,
      notify: { notifier: createNotifier([channel], { timeoutMs: 1_000, retries: 0 }), lang: 'en' },
    });
  };
}

describe('notifications under a burst of resets', () => {
  it('sends at most NOTIFY_MAX_PER_RUN messages and one digest per run and channel, each key once, the digest too', async () => {
    received = [];
    refuseDigests = 1;
    const build = await builder();
    // Run 1: five resets one by one, then a digest for the other three, which the receiver refuses.
    expect((await build(0)).notifications).toEqual({ sent: NOTIFY_MAX_PER_RUN, failed: 1, skipped: 0 });
    expect(received.map((r) => r.kind)).toEqual([...Array(NOTIFY_MAX_PER_RUN).fill('reset'), 'digest']);
    expect(received.at(-1)!.title).toBe('More resets recorded: 3');
    const digestKey = received.at(-1)!.key;
    // Oldest first: the five oldest resets went one by one.
    expect(received.slice(0, NOTIFY_MAX_PER_RUN).map((r) => r.key)).toEqual(
      [7, 6, 5, 4, 3].map((k) => `reset-status-api:reset:sr-burst-${k}`),
    );
    // Run 2: only the digest again, with the same Idempotency-Key (a retry, not a new message).
    expect((await build(15)).notifications).toEqual({ sent: 1, failed: 0, skipped: 0 });
    expect(received.at(-1)).toMatchObject({ kind: 'digest', key: digestKey });
    // Runs 3 and 4: nothing is due; the resets the digest stood for are never sent one by one.
    expect((await build(30)).notifications).toEqual({ sent: 0, failed: 0, skipped: 0 });
    expect((await build(45)).notifications).toEqual({ sent: 0, failed: 0, skipped: 0 });
    const delivered = received.filter((r, i) => !(r.kind === 'digest' && i === NOTIFY_MAX_PER_RUN));
    expect(new Set(delivered.map((r) => r.key)).size).toBe(delivered.length);
    expect(delivered).toHaveLength(NOTIFY_MAX_PER_RUN + 1);
  });
});

describe('the sent log', () => {
  const NOW = new Date(T0);
  const entry = (i: number, at: Date) => ({ channel: 'c', key: `reset:k${i}`, at: at.toISOString() });

  it('is never cut by a count: thousands of keys sent within their window are all remembered', () => {
    const log: NotifyLog = {
      sent: Array.from({ length: 5_000 }, (_, i) => entry(i, new Date(T0 - 60 * MIN))),
      failed: [],
    };
    const next = recordOutcomes(log, [{ channel: 'c', key: 'reset:new', result: 'sent', detail: '' }], NOW);
    expect(next.sent).toHaveLength(5_001);
  });

  it('drops a key only once its window has closed: an old entry whose message is still due stays', () => {
    const old = new Date(T0 - SENT_LOG_KEEP_MS - MIN);
    const log: NotifyLog = { sent: [entry(1, old), entry(2, old)], failed: [] };
    const next = recordOutcomes(
      log,
      [{ channel: 'c', key: 'reset:new', result: 'sent', detail: '' }],
      NOW,
      new Set(['reset:k1']),
    );
    expect(next.sent.map((s) => s.key)).toEqual(['reset:k1', 'reset:new']);
  });

  it("records a digest's covered keys with it", () => {
    const next = recordOutcomes(
      { sent: [], failed: [] },
      [{ channel: 'c', key: 'digest:d', covers: ['reset:a', 'reset:b'], result: 'sent', detail: '' }],
      NOW,
    );
    expect(next.sent.map((s) => s.key)).toEqual(['digest:d', 'reset:a', 'reset:b']);
  });
});

describe('the per-run cap', () => {
  it('always sends the announcement and a confirmed day on their own; resets fill the rest, the digest the remainder', () => {
    const now = new Date(T0);
    const events = Array.from({ length: 8 }, (_, k) =>
      EventSchema.parse({
        id: `r${k}`,
        type: 'global_reset',
        status: 'archived',
        reason: 'other',
        origin: 'service_resets',
        time_precision: 'second',
        time_basis: 'observation',
        announced_at: null,
        observed_at: new Date(T0 - (k + 1) * 60 * MIN).toISOString(),
        effective_at: null,
        evidence_text: 'x',
        sources: [{ platform: 'web', url: `https://t.example/${k}` }],
      }),
    );
    const ann: Announcement = {
      id: 'sr-pm',
      upstream_id: 'pm',
      type: 'global_reset',
      announced_at: '2026-11-21T10:00:00Z',
      scheduled_for: '2026-11-21T17:00:00Z',
      text: 'At 9am PT.',
      source: { platform: 'X', url: 'https://x.com/a/status/5' },
      first_seen_at: '2026-11-21T10:00:00Z',
    };
    const today: TodayStatus = {
      date: '2026-11-21',
      state: 'confirmed_today',
      reset: true,
      event_ids: ['v1'],
      last_good_check_at: null,
      valid_until: null,
      explanation: { code: 'x', params: {} },
    };
    const plan = planNotifications({ sent: [], failed: [] }, events, ann, today, now, {
      channels: ['c'],
      lang: 'en',
      publicUrl: 'https://api.example.test',
    });
    expect(plan.map((d) => d.message.kind)).toEqual([
      'reset',
      'reset',
      'reset',
      'announcement',
      'confirmed_today',
      'digest',
    ]);
    expect(plan.map((d) => d.keys[0]).slice(0, 3)).toEqual(['reset:r7', 'reset:r6', 'reset:r5']);
    expect(plan.at(-1)!.covers).toEqual(['reset:r4', 'reset:r3', 'reset:r2', 'reset:r1', 'reset:r0']);
  });
});
