import { describe, expect, it } from 'vitest';
import { eventDate, mergeEvents } from '../../builder/model/events.ts';
import { EventSchema, type Event, type EventInput, type SourceCheck } from '../../builder/model/schemas.ts';
import { STALE_AFTER_MS, computeLatest, computeToday } from '../../builder/model/status.ts';

const ev = (over: Partial<EventInput> & { id: string }): Event =>
  EventSchema.parse({
    type: 'global_reset',
    status: 'archived',
    reason: 'other',
    origin: 'ledger',
    time_precision: 'second',
    time_basis: 'announcement',
    announced_at: '2026-11-20T10:00:00Z',
    observed_at: null,
    effective_at: null,
    evidence_text: 'We have reset everyone’s Codex usage limits.',
    sources: [{ platform: 'X', url: `https://x.com/someone/status/${over.id.length}${over.id.charCodeAt(0)}` }],
    ...over,
  });

const check = (checked_at: string, ok = true, kind: SourceCheck['kind'] = 'reset_tracker'): SourceCheck => ({
  source: kind === 'reset_tracker' ? 'reset-tracker' : kind,
  kind,
  url: 'http://127.0.0.1/x',
  ok,
  http_status: ok ? 200 : 503,
  latency_ms: 12,
  items_read: ok ? 3 : 0,
  checked_at,
  detail: { code: ok ? 'ok' : 'http_status', params: {} },
});

const at = (iso: string) => new Date(iso);
const minus = (iso: string, ms: number) => new Date(Date.parse(iso) - ms).toISOString();

describe('computeToday staleness', () => {
  const now = '2026-11-21T12:00:00.000Z';
  it('is no_verified_reset until 29:59.999 since the last good check, unknown from exactly 30:00 (as the edge reads stale_after)', () => {
    expect(computeToday([], [check(minus(now, 29 * 60_000 + 59_000))], at(now)).state).toBe('no_verified_reset');
    expect(computeToday([], [check(minus(now, STALE_AFTER_MS - 1))], at(now)).state).toBe('no_verified_reset');
    expect(computeToday([], [check(minus(now, STALE_AFTER_MS))], at(now)).state).toBe('unknown');
    const stale = computeToday([], [check(minus(now, 30 * 60_000 + 1_000))], at(now));
    expect(stale.state).toBe('unknown');
    expect(stale.reset).toBeNull();
    expect(stale.explanation.code).toBe('state.unknown_stale');
  });

  it('is unknown with reset null (never false) before any check, and when only failed checks exist', () => {
    const none = computeToday([], [], at(now));
    expect(none).toMatchObject({ state: 'unknown', reset: null, last_good_check_at: null });
    expect(none.explanation.code).toBe('state.unknown_unchecked');
    expect(computeToday([], [check(minus(now, 60_000), false)], at(now)).reset).toBeNull();
  });

  it('does not let sources that cannot report a reset keep the state fresh', () => {
    expect(
      computeToday(
        [],
        [check(minus(now, 60_000), true, 'status_page'), check(minus(now, 60_000), true, 'signal_feed')],
        at(now),
      ).state,
    ).toBe('unknown');
  });

  it('stays known while either tracker is read: one good check of the second keeps it, and says which host was read', () => {
    const first = { ...check(minus(now, 60_000), false), url: 'https://codex-resets.com/' };
    const second = { ...check(minus(now, 60_000), true, 'reset_timeline'), url: 'https://codex-reset.com/' };
    const today = computeToday([], [first, second], at(now));
    expect(today).toMatchObject({ state: 'no_verified_reset', reset: false });
    expect(today.explanation.params.read).toBe('codex-reset.com');
    // Both down for 30 minutes: unknown, as with one tracker.
    const stale = { ...second, checked_at: minus(now, STALE_AFTER_MS) };
    expect(computeToday([], [first, stale], at(now)).state).toBe('unknown');
  });

  it('says until when a no_verified_reset answer holds', () => {
    const t = computeToday([], [check('2026-11-21T11:50:00.000Z')], at(now));
    expect(t.reset).toBe(false);
    expect(t.valid_until).toBe('2026-11-21T12:20:00Z');
  });
});

describe('computeToday UTC day boundaries', () => {
  it('a reset at 23:59:59 belongs to that day, one at 00:00:00 to the next', () => {
    const late = ev({ id: 'late', announced_at: '2026-11-20T23:59:59Z' });
    const early = ev({ id: 'early', announced_at: '2026-11-21T00:00:00Z' });
    expect(computeToday([late], [], at('2026-11-20T23:59:59Z')).state).toBe('recorded_today');
    expect(computeToday([late], [check('2026-11-21T00:00:00.000Z')], at('2026-11-21T00:00:00Z')).state).toBe(
      'no_verified_reset',
    );
    expect(computeToday([early], [], at('2026-11-21T00:00:00Z'))).toMatchObject({
      state: 'recorded_today',
      reset: true,
      event_ids: ['early'],
    });
    expect(computeToday([early], [check('2026-11-20T23:59:00.000Z')], at('2026-11-20T23:59:59Z')).state).toBe(
      'no_verified_reset',
    );
  });

  it('decides the day on the effective time when an announcement precedes it across midnight', () => {
    const e = ev({
      id: 'across',
      announced_at: '2026-11-20T23:30:00Z',
      effective_at: '2026-11-21T00:30:00Z',
      time_basis: 'effective',
    });
    expect(eventDate(e)).toBe('2026-11-21');
    // Announced on the 20th but not yet applied: not a reset of the 20th.
    expect(computeToday([e], [check('2026-11-20T23:45:00.000Z')], at('2026-11-20T23:50:00Z')).state).toBe(
      'no_verified_reset',
    );
    // Before it takes effect on the 21st it is not today's reset yet; after, it is.
    expect(computeToday([e], [check('2026-11-21T00:10:00.000Z')], at('2026-11-21T00:15:00Z')).state).toBe(
      'no_verified_reset',
    );
    expect(computeToday([e], [], at('2026-11-21T00:31:00Z')).state).toBe('recorded_today');
  });

  it('a banked grant today is not a global reset', () => {
    const g = ev({ id: 'grant', type: 'banked_grant', reason: 'banked', announced_at: '2026-11-21T09:00:00Z' });
    const t = computeToday([g], [check('2026-11-21T11:55:00.000Z')], at('2026-11-21T12:00:00Z'));
    expect(t).toMatchObject({ state: 'no_verified_reset', reset: false });
    expect(computeLatest([g], at('2026-11-21T12:00:00Z')).latestReset).toBeNull();
  });
});

describe('a reset the sources dispute', () => {
  it('is recorded today, and the explanation names which source says what', () => {
    const e = {
      ...ev({ id: 'sr-2076418567143408112', origin: 'service_resets', announced_at: '2026-11-21T11:00:00Z' }),
      agreement: 'disputed' as const,
      recorded_by: [
        { origin: 'service_resets' as const, record_id: 'sr-1', label: 'regular', reads_as: 'global_reset' as const },
        {
          origin: 'reset_timeline' as const,
          record_id: 'rt-1',
          label: 'credits/archive',
          reads_as: 'banked_grant' as const,
        },
      ],
    };
    const today = computeToday([e], [check('2026-11-21T11:50:00Z')], at('2026-11-21T12:00:00Z'));
    expect(today).toMatchObject({ state: 'recorded_today', reset: true, event_ids: [e.id] });
    expect(today.explanation).toEqual({
      code: 'state.recorded_today_disputed',
      params: {
        date: '2026-11-21',
        read: '127.0.0.1',
        sources: 'codex-reset.com: credits/archive; codex-resets.com: regular',
      },
    });
  });
});

describe('verified records', () => {
  const archived = ev({
    id: 'ledger-a',
    announced_at: '2026-11-21T08:00:00Z',
    sources: [{ platform: 'X', url: 'https://x.com/thsottiaux/status/42' }],
  });
  const verified = ev({
    id: 'verified-a',
    status: 'verified',
    origin: 'curated',
    announced_at: '2026-11-21T08:00:00Z',
    effective_at: '2026-11-21T08:10:00Z',
    time_basis: 'effective',
    sources: [{ platform: 'X', url: 'https://twitter.com/thsottiaux/status/42/' }],
    author_notes: { en: 'Checked on two accounts.' },
    verification_notes: { en: 'Post and reset confirmed.', de: 'Beitrag und Reset bestätigt.' },
    title: { en: 'Reset after the morning outage', de: 'Reset nach dem Ausfall am Morgen' },
  });

  it('verified beats archived for the same event, keeping its translations and absorbing the other id', () => {
    const merged = mergeEvents([archived], [verified]);
    expect(merged).toHaveLength(1);
    expect(merged[0]).toMatchObject({ id: 'verified-a', status: 'verified', same_as: ['ledger-a'] });
    expect(merged[0]!.title?.de).toBe('Reset nach dem Ausfall am Morgen');
    expect(mergeEvents([verified], [archived])[0]!.id).toBe('verified-a');
  });

  it('a verified reset with evidence today is confirmed_today and is the latest verified reset', () => {
    const events = mergeEvents([archived, verified]);
    const t = computeToday(events, [], at('2026-11-21T09:00:00Z'));
    expect(t).toMatchObject({ state: 'confirmed_today', reset: true, event_ids: ['verified-a'] });
    const latest = computeLatest(events, at('2026-11-21T09:00:00Z'));
    expect(latest.latestVerifiedReset?.id).toBe('verified-a');
    expect(latest.latestReset?.id).toBe('verified-a');
  });

  it('a verified record without author notes, verification notes or sources is refused', () => {
    expect(() => ev({ id: 'bad', status: 'verified', origin: 'curated' })).toThrow(/verification_notes/);
  });
});
