// Rules of today's state that a quiet regression would break: verification needs evidence (in the record schema and
// in today's decision), the effective time decides the day, and why today is unknown.
import { describe, expect, it } from 'vitest';
import { eventTime, knownBy } from '../../builder/model/events.ts';
import { EventSchema, type Event, type EventInput, type SourceCheck } from '../../builder/model/schemas.ts';
import { computeToday, stateAsOf } from '../../builder/model/status.ts';
import { renderEvent } from '../../builder/render/documents.ts';
import { translator } from '../../builder/render/i18n.ts';

const base: EventInput = {
  id: 'e',
  type: 'global_reset',
  status: 'archived',
  reason: 'other',
  origin: 'ledger',
  time_precision: 'second',
  time_basis: 'announcement',
  announced_at: '2026-11-21T08:00:00Z',
  observed_at: null,
  effective_at: null,
  evidence_text: 'We reset Codex usage limits for everyone.',
  sources: [{ platform: 'X', url: 'https://x.com/dev/status/1' }],
};
const verifiedInput: EventInput = {
  ...base,
  id: 'v',
  status: 'verified',
  origin: 'curated',
  author_notes: { en: 'seen' },
  verification_notes: { en: 'checked the post' },
};
const check = (checked_at: string, ok: boolean): SourceCheck => ({
  source: 'reset-tracker',
  kind: 'reset_tracker',
  url: 'http://127.0.0.1/x',
  ok,
  http_status: ok ? 200 : 503,
  latency_ms: 5,
  items_read: 0,
  checked_at,
  detail: { code: ok ? 'ok' : 'http_status', params: {} },
});
const asOf = new Date('2026-11-21T12:00:00Z');

describe('a verified reset needs evidence', () => {
  it('the record schema refuses a verified record without an evidence source', () => {
    expect(EventSchema.safeParse(verifiedInput).success).toBe(true);
    const r = EventSchema.safeParse({ ...verifiedInput, sources: [] });
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.path.join('.'))).toContain('sources');
    // An archived record may have no source; only verification needs one.
    expect(EventSchema.safeParse({ ...base, sources: [] }).success).toBe(true);
  });

  it('today is confirmed only by a verified reset with evidence; without its evidence text it is only recorded', () => {
    const verified = EventSchema.parse(verifiedInput);
    expect(computeToday([verified], [], asOf).state).toBe('confirmed_today');
    // A verified record whose evidence is blank (the schema lets an empty text through) does not confirm the day.
    const blank: Event = { ...verified, evidence_text: '   ' };
    expect(computeToday([blank], [], asOf)).toMatchObject({ state: 'recorded_today', reset: true });
    // Nor does one whose sources were dropped after parsing (merged or hand-built records).
    const noSource: Event = { ...verified, sources: [] };
    expect(computeToday([noSource], [], asOf).state).toBe('recorded_today');
  });
});

describe('the effective time decides, before the observed one', () => {
  // Announced and observed on the 20th, effective just after midnight on the 21st.
  const e = EventSchema.parse({
    ...base,
    time_basis: 'effective',
    announced_at: '2026-11-20T23:00:00Z',
    observed_at: '2026-11-20T23:30:00Z',
    effective_at: '2026-11-21T00:10:00Z',
  });

  it('names the effective time as occurred_at, in every language', () => {
    expect(eventTime(e)).toEqual({ at: '2026-11-21T00:10:00Z', basis: 'effective' });
    for (const lang of ['en', 'de'] as const) {
      const doc = renderEvent(e, lang, translator(lang));
      expect(doc.occurred_at).toBe('2026-11-21T00:10:00Z');
      expect(doc.time_basis).toBe('effective');
    }
  });

  it("makes it the 21st's reset, not the 20th's", () => {
    expect(computeToday([e], [], asOf)).toMatchObject({
      date: '2026-11-21',
      state: 'recorded_today',
      event_ids: ['e'],
    });
    expect(computeToday([e], [check('2026-11-20T23:50:00.000Z', true)], new Date('2026-11-20T23:55:00Z')).state).toBe(
      'no_verified_reset',
    );
  });

  it('an observation without an effective time still beats the announcement', () => {
    const o = EventSchema.parse({
      ...base,
      time_basis: 'observation',
      announced_at: '2026-11-20T22:00:00Z',
      observed_at: '2026-11-21T01:00:00Z',
    });
    expect(eventTime(o)).toEqual({ at: '2026-11-21T01:00:00Z', basis: 'observation' });
  });
});

describe('why today is unknown', () => {
  it('never checked, checked and every check failed (ever, or since the last good one), or the last good check too old', () => {
    expect(computeToday([], [], asOf).explanation).toEqual({ code: 'state.unknown_unchecked', params: {} });
    const failed = computeToday(
      [],
      [check('2026-11-21T11:45:00.000Z', false), check('2026-11-21T11:59:00.000Z', false)],
      asOf,
    );
    expect(failed).toMatchObject({
      state: 'unknown',
      reset: null,
      explanation: { code: 'state.unknown_failed', params: { checked: '2026-11-21T11:59:00.000Z' } },
    });
    const stale = computeToday(
      [],
      [check('2026-11-21T10:00:00.000Z', true), check('2026-11-21T11:59:00.000Z', false)],
      asOf,
    );
    expect(stale.explanation).toEqual({
      code: 'state.unknown_failed_since',
      params: { since: '2026-11-21T10:00:00.000Z', checked: '2026-11-21T11:59:00.000Z' },
    });
    // Nothing checked after the last good check (an as-of build, a skipped tick): it is just too old.
    const old = computeToday([], [check('2026-11-21T10:00:00.000Z', true)], asOf);
    expect(old.explanation).toEqual({ code: 'state.unknown_stale', params: { last: '2026-11-21T10:00:00.000Z' } });
    expect(translator('en')('common:state.unknown_failed', { checked: 'X' })).toContain('every check failed');
  });
});

describe('as of an instant', () => {
  it('an event is known from its earliest recorded time; state after the instant is hidden', () => {
    const later = EventSchema.parse({ ...base, announced_at: '2026-11-21T12:00:01Z' });
    const scheduled = EventSchema.parse({
      ...base,
      time_basis: 'effective',
      announced_at: '2026-11-21T11:00:00Z',
      effective_at: '2026-11-22T00:00:00Z',
    });
    expect(knownBy(later, asOf)).toBe(false);
    expect(knownBy(scheduled, asOf)).toBe(true);
    expect(knownBy(EventSchema.parse({ ...base, time_precision: 'day', announced_at: '2026-11-21' }), asOf)).toBe(true);
    const seen = stateAsOf(
      {
        schema_version: 1,
        updated_at: null,
        checks: [check('2026-11-21T11:00:00.000Z', true), check('2026-11-21T12:00:01.000Z', true)],
        upstream_events: [],
        upstream_status: null,
        signals: [],
        forecast_log: [],
        forecast_resolutions: [],
        last_forecast: null,
        tracker_watch: null,
      } as never,
      asOf,
    );
    expect(seen.checks.map((c) => c.checked_at)).toEqual(['2026-11-21T11:00:00.000Z']);
  });
});
