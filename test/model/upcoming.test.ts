import { describe, expect, it } from 'vitest';
import { EventSchema, emptyState, type Announcement, type Event } from '../../builder/model/schemas.ts';
import { computeUpcoming, OVERDUE_AFTER_MS, withOverdueAnnouncement } from '../../builder/model/announcement.ts';

const a: Announcement = {
  id: 'sr-rst_pm',
  upstream_id: 'rst_pm',
  type: 'global_reset',
  announced_at: '2026-11-21T10:00:00Z',
  scheduled_for: '2026-11-21T17:00:00Z',
  text: 'Resetting everyone at 9am PT.',
  source: { platform: 'X', url: 'https://x.com/example_dev/status/1' },
  first_seen_at: '2026-11-21T10:05:00Z',
};

const reset = (id: string, at: string, extra: Partial<Event> = {}): Event =>
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

const at = (iso: string) => new Date(iso);

describe('computeUpcoming', () => {
  it('is the announcement before its time and up to 3 hours after it', () => {
    expect(computeUpcoming(a, [], at('2026-11-21T12:00:00Z')).upcoming).toEqual(a);
    expect(computeUpcoming(a, [], new Date(Date.parse(a.scheduled_for!) + OVERDUE_AFTER_MS)).upcoming).toEqual(a);
  });

  it('past 3 hours after its time with no recorded reset, it is overdue instead of upcoming', () => {
    expect(computeUpcoming(a, [], at('2026-11-21T20:00:01Z'))).toEqual({ upcoming: null, overdue: a });
  });

  it('an announcement with no time is due 24 hours after it was posted', () => {
    const u = { ...a, scheduled_for: null };
    expect(computeUpcoming(u, [], at('2026-11-22T12:59:00Z')).upcoming).toEqual(u);
    expect(computeUpcoming(u, [], at('2026-11-22T13:00:01Z')).overdue).toEqual(u);
  });

  it('a recorded reset fulfils it: same id, same post, named in same_as, or a reset after the announcement', () => {
    const now = at('2026-11-21T18:00:00Z');
    expect(computeUpcoming(a, [reset('sr-rst_pm', '2026-11-21T17:02:00Z')], now).upcoming).toBeNull();
    expect(
      computeUpcoming(
        a,
        [
          reset('other', '2026-11-20T17:02:00Z', {
            sources: [{ platform: 'X', url: 'https://x.com/example_dev/status/1' }],
          }),
        ],
        now,
      ).upcoming,
    ).toBeNull();
    expect(
      computeUpcoming(a, [reset('curated-1', '2026-11-19T00:00:00Z', { same_as: ['sr-rst_pm'] })], now).upcoming,
    ).toBeNull();
    expect(computeUpcoming(a, [reset('later', '2026-11-21T17:10:00Z')], now)).toEqual({
      upcoming: null,
      overdue: null,
    });
    // A reset before the announcement (the morning's) does not fulfil the afternoon's announcement.
    expect(computeUpcoming(a, [reset('morning', '2026-11-21T08:00:00Z')], now).upcoming).toEqual(a);
  });

  it('none announced is none upcoming', () => {
    expect(computeUpcoming(null, [], at('2026-11-21T12:00:00Z'))).toEqual({ upcoming: null, overdue: null });
  });
});

describe('withOverdueAnnouncement', () => {
  it('adds the overdue announcement once as a signal awaiting review', () => {
    const now = at('2026-11-21T21:00:00Z');
    const s1 = withOverdueAnnouncement({ ...emptyState(), announcement: a }, [], now);
    expect(s1.signals).toEqual([
      expect.objectContaining({
        id: 'overdue-sr-rst_pm',
        kind: 'overdue_announcement',
        review: 'awaiting_review',
        url: a.source!.url,
        published_at: a.announced_at,
      }),
    ]);
    expect(withOverdueAnnouncement(s1, [], new Date(now.getTime() + 60_000)).signals).toHaveLength(1);
    expect(
      withOverdueAnnouncement({ ...emptyState(), announcement: a }, [], at('2026-11-21T12:00:00Z')).signals,
    ).toEqual([]);
  });
});
