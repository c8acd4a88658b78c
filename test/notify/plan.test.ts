import { describe, expect, it } from 'vitest';
import { EventSchema, type Announcement, type Event, type NotifyLog } from '../../builder/model/schemas.ts';
import type { TodayStatus } from '../../builder/model/status.ts';
import { NOTIFY_RETRY_MS, planNotifications, recordOutcomes } from '../../builder/notify/plan.ts';

const NOW = new Date('2026-11-21T12:00:00Z');
const O = { channels: ['a', 'b'], lang: 'en' as const, publicUrl: 'https://api.example.test' };
const EMPTY: NotifyLog = { sent: [], failed: [] };

const ev = (id: string, at: string, extra: Partial<Event> = {}): Event =>
  EventSchema.parse({
    id,
    type: 'global_reset',
    status: 'archived',
    reason: 'other',
    origin: 'service_resets',
    time_precision: 'second',
    time_basis: 'observation',
    announced_at: null,
    observed_at: at,
    effective_at: null,
    evidence_text: 'x',
    sources: [{ platform: 'web', url: `https://example.com/${id}` }],
    ...extra,
  });
const today = (state: TodayStatus['state'], ids: string[] = []): TodayStatus => ({
  date: '2026-11-21',
  state,
  reset: state === 'unknown' ? null : state !== 'no_verified_reset',
  event_ids: ids,
  last_good_check_at: null,
  valid_until: null,
  explanation: { code: 'x', params: {} },
});
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
const keys = (d: ReturnType<typeof planNotifications>) => d.map((x) => `${x.channel}:${x.keys[0]}`);

describe('planNotifications', () => {
  it('sends each channel a reset recorded within 24 hours, never older ones, ledger imports, day-precision records or future ones', () => {
    const events = [
      ev('fresh', '2026-11-21T08:00:00Z'),
      ev('future', '2026-11-21T13:00:00Z'),
      ev('old', '2026-11-20T11:59:00Z'),
      ev('ledger-x', '2026-11-21T09:00:00Z', { origin: 'ledger' }),
      ev('dayish', '2026-11-21', { time_precision: 'day' }),
      ev('banked', '2026-11-21T09:00:00Z', { type: 'banked_grant' }),
    ];
    expect(keys(planNotifications(EMPTY, events, null, today('recorded_today'), NOW, O))).toEqual([
      'a:reset:fresh',
      'b:reset:fresh',
    ]);
  });

  it('sends the announcement and a confirmed day once each; what a channel was sent is not sent again', () => {
    const plan = planNotifications(EMPTY, [], ann, today('confirmed_today', ['v1']), NOW, { ...O, channels: ['a'] });
    expect(keys(plan)).toEqual(['a:announcement:sr-pm', 'a:confirmed:2026-11-21']);
    expect(plan.map((d) => d.message.idempotency_key)).toEqual([
      'reset-status-api:announcement:sr-pm',
      'reset-status-api:confirmed:2026-11-21',
    ]);
    const log = recordOutcomes(
      EMPTY,
      plan.map((d) => ({ channel: d.channel, key: d.keys[0]!, result: 'sent' as const, detail: '' })),
      NOW,
    );
    expect(planNotifications(log, [], ann, today('confirmed_today', ['v1']), NOW, O).map((d) => d.channel)).toEqual([
      'b',
      'b',
    ]);
  });

  it('a verified record that absorbed a sent tracker record (same_as) is not news again', () => {
    const log = recordOutcomes(EMPTY, [{ channel: 'a', key: 'reset:sr-x', result: 'sent', detail: '' }], NOW);
    const verified = ev('2026-11-21-verified', '2026-11-21T08:00:00Z', { same_as: ['sr-x'] });
    expect(keys(planNotifications(log, [verified], null, today('recorded_today'), NOW, O))).toEqual([
      'b:reset:2026-11-21-verified',
    ]);
  });

  it('retries a failed delivery with the same idempotency key until NOTIFY_RETRY_MS after its first failure', () => {
    const events = [ev('fresh', '2026-11-21T08:00:00Z')];
    const o = { ...O, channels: ['a'] };
    const failOnce = recordOutcomes(
      EMPTY,
      [{ channel: 'a', key: 'reset:fresh', result: 'failed', detail: 'HTTP 503' }],
      NOW,
    );
    const later = new Date(NOW.getTime() + 60 * 60_000);
    const again = recordOutcomes(
      failOnce,
      [{ channel: 'a', key: 'reset:fresh', result: 'failed', detail: 'HTTP 503' }],
      later,
    );
    expect(again.failed).toEqual([
      { channel: 'a', key: 'reset:fresh', first_failed_at: NOW.toISOString(), attempts: 2 },
    ]);
    expect(planNotifications(again, events, null, today('recorded_today'), later, o)[0]!.message.idempotency_key).toBe(
      'reset-status-api:reset:fresh',
    );
    const tooLate = new Date(NOW.getTime() + NOTIFY_RETRY_MS + 1);
    expect(
      planNotifications(again, [ev('fresh', '2026-11-21T08:00:00Z')], null, today('recorded_today'), tooLate, o),
    ).toEqual([]);
    const ok = recordOutcomes(again, [{ channel: 'a', key: 'reset:fresh', result: 'sent', detail: 'HTTP 200' }], later);
    expect(ok.failed).toEqual([]);
    expect(ok.sent).toHaveLength(1);
  });

  it('a skipped delivery (budget) is neither sent nor failed, and the log forgets entries after 8 days', () => {
    const log = recordOutcomes(
      EMPTY,
      [
        { channel: 'a', key: 'k', result: 'skipped', detail: 'budget' },
        { channel: 'a', key: 'old', result: 'sent', detail: '' },
      ],
      NOW,
    );
    expect(log).toEqual({ sent: [{ channel: 'a', key: 'old', at: NOW.toISOString() }], failed: [] });
    expect(recordOutcomes(log, [], new Date(NOW.getTime() + 9 * 86_400_000)).sent).toEqual([]);
  });
});

describe('a reset verified after it was announced', () => {
  it('keeps its id and is never news again: the confirmed day stands for the reset already sent', () => {
    const e = ev('sr-2097174560412246215', '2026-11-21T08:00:00Z');
    const first = planNotifications(EMPTY, [e], null, today('recorded_today', [e.id]), NOW, O);
    expect(keys(first)).toEqual(['a:reset:sr-2097174560412246215', 'b:reset:sr-2097174560412246215']);
    const log = recordOutcomes(
      EMPTY,
      first.map((d) => ({ channel: d.channel, key: d.keys[0]!, result: 'sent' as const, detail: '200' })),
      NOW,
      new Set(),
    );
    // The same event, now verified by the service: nothing new to send.
    const verified = { ...e, status: 'verified' as const };
    expect(planNotifications(log, [verified], null, today('confirmed_today', [e.id]), NOW, O)).toEqual([]);
  });

  it('sends one message, the confirmed day, when a reset is recorded and verified in the same run', () => {
    const e = { ...ev('sr-1', '2026-11-21T08:00:00Z'), status: 'verified' as const };
    expect(keys(planNotifications(EMPTY, [e], null, today('confirmed_today', [e.id]), NOW, O))).toEqual([
      'a:confirmed:2026-11-21',
      'b:confirmed:2026-11-21',
    ]);
  });

  it('credits codex-reset.com in a message built from its record, as its terms ask', () => {
    const e = ev('rt-2103911959544610829', '2026-11-21T08:00:00Z', { origin: 'reset_timeline' });
    const [d] = planNotifications(EMPTY, [e], null, today('recorded_today', [e.id]), NOW, { ...O, channels: ['a'] });
    expect(d!.message.summary).toMatch(/Data: codex-reset\.com \(https:\/\/codex-reset\.com\/\)$/);
  });
});
