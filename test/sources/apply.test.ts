// Tests for builder/model/apply.ts (kept beside the source tests whose results it folds into state).
import { describe, expect, it } from 'vitest';
import { applySourceResults, CHECK_HISTORY_PER_SOURCE } from '../../builder/model/apply.ts';
import {
  emptyState,
  StateSchema,
  type Signal,
  type SourceCheck,
  type State,
  type UpstreamStatus,
} from '../../builder/model/schemas.ts';
import { ReviewDecisionSchema, type SourceResult } from '../../builder/model/inputs.ts';

const AS_OF = new Date('2026-11-21T12:00:00Z');
const minutesAgo = (m: number) => new Date(AS_OF.getTime() - m * 60_000).toISOString();

function check(source: string, ok: boolean, checked_at: string, code = ok ? 'ok' : 'timeout'): SourceCheck {
  const kind = source === 'status-page' ? 'status_page' : source === 'reset-tracker' ? 'reset_tracker' : 'signal_feed';
  return {
    source,
    kind,
    url: `https://${source}.example.test/`,
    ok,
    http_status: ok ? 200 : null,
    latency_ms: 12,
    items_read: ok ? 1 : 0,
    checked_at,
    detail: { code, params: {} },
  };
}

function signal(
  id: string,
  url: string | null,
  published_at: string | null,
  first_seen_at = AS_OF.toISOString(),
): Signal {
  return {
    id,
    kind: 'feed_item',
    source: 'feed-1',
    title: `title ${id}`,
    excerpt: '',
    url,
    published_at,
    first_seen_at,
    review: 'awaiting_review',
    promoted_to: null,
  };
}

const status = (indicator: string): UpstreamStatus => ({
  page_url: 'https://status.example.test',
  indicator,
  description: indicator,
  updated_at: null,
  components: [],
  fetched_at: AS_OF.toISOString(),
});

describe('applySourceResults', () => {
  it('appends checks and caps the history per source, newest last', () => {
    const old = Array.from({ length: CHECK_HISTORY_PER_SOURCE }, (_, i) =>
      check('reset-tracker', true, minutesAgo(15 * (CHECK_HISTORY_PER_SOURCE - i))),
    );
    const state: State = { ...emptyState(), checks: [...old, check('feed-1', true, minutesAgo(15))] };
    const next = applySourceResults(state, [{ check: check('reset-tracker', false, AS_OF.toISOString()) }], [], AS_OF);
    const tracker = next.checks.filter((c) => c.source === 'reset-tracker');
    expect(tracker).toHaveLength(CHECK_HISTORY_PER_SOURCE);
    expect(tracker[0]).toEqual(old[1]);
    expect(next.checks.at(-1)).toMatchObject({ source: 'reset-tracker', ok: false });
    expect(next.checks.filter((c) => c.source === 'feed-1')).toHaveLength(1);
    expect(StateSchema.parse(next)).toEqual(next);
  });

  it('treats a run repeated for the same instant as one check per source, the later result winning', () => {
    const earlier = check('reset-tracker', true, minutesAgo(15));
    const failed = [
      { check: check('reset-tracker', false, AS_OF.toISOString()) },
      { check: check('feed-1', true, AS_OF.toISOString()) },
    ];
    const once = applySourceResults({ ...emptyState(), checks: [earlier] }, failed, [], AS_OF);
    const retried = applySourceResults(once, [{ check: check('reset-tracker', true, AS_OF.toISOString()) }], [], AS_OF);
    expect(retried.checks.map((c) => [c.source, c.checked_at, c.ok])).toEqual([
      ['reset-tracker', minutesAgo(15), true],
      ['feed-1', AS_OF.toISOString(), true],
      ['reset-tracker', AS_OF.toISOString(), true],
    ]);
    expect(applySourceResults(once, failed, [], AS_OF)).toEqual(once);
  });
  it('replaces the upstream status only from an ok result', () => {
    const state: State = { ...emptyState(), upstream_status: status('none') };
    const failed: SourceResult = { check: check('status-page', false, AS_OF.toISOString()) };
    expect(applySourceResults(state, [failed], [], AS_OF).upstream_status).toEqual(status('none'));
    // A failed check that still carried data (it should not) is ignored too.
    expect(applySourceResults(state, [{ ...failed, status: status('major') }], [], AS_OF).upstream_status).toEqual(
      status('none'),
    );
    expect(
      applySourceResults(
        state,
        [{ check: check('status-page', true, AS_OF.toISOString()), status: status('minor') }],
        [],
        AS_OF,
      ).upstream_status,
    ).toEqual(status('minor'));
  });

  it('merges signals by link, keeping the first sighting and the stored id', () => {
    const state: State = {
      ...emptyState(),
      signals: [signal('feed-item-old', 'https://www.forum.example.test/p/1/', minutesAgo(300), minutesAgo(290))],
    };
    const fresh = {
      ...signal('feed-item-new', 'https://forum.example.test/p/1', minutesAgo(300)),
      title: 'edited title',
    };
    const next = applySourceResults(
      state,
      [
        {
          check: check('feed-1', true, AS_OF.toISOString()),
          signals: [fresh, signal('feed-item-2', 'https://forum.example.test/p/2', null)],
        },
      ],
      [],
      AS_OF,
    );
    expect(next.signals).toHaveLength(2);
    expect(next.signals.find((s) => s.title === 'edited title')).toMatchObject({
      id: 'feed-item-old',
      first_seen_at: minutesAgo(290),
    });
  });

  it('dedupes signals without a link by id', () => {
    const a = { ...signal('status-incident-1', null, null, minutesAgo(60)), kind: 'status_incident' as const };
    const state: State = { ...emptyState(), signals: [a] };
    const next = applySourceResults(
      state,
      [
        {
          check: check('status-page', true, AS_OF.toISOString()),
          signals: [{ ...a, first_seen_at: AS_OF.toISOString() }],
        },
      ],
      [],
      AS_OF,
    );
    expect(next.signals).toEqual([a]);
  });

  it('keeps signals of the last 7 days only, and does not trust a future published_at', () => {
    const state: State = {
      ...emptyState(),
      signals: [
        signal('recent', 'https://a.example.test/1', minutesAgo(6 * 24 * 60)),
        signal('stale', 'https://a.example.test/2', minutesAgo(8 * 24 * 60)),
        signal('stale-unpublished', null, null, minutesAgo(8 * 24 * 60)),
        signal('future', 'https://a.example.test/3', '2027-01-01T00:00:00Z', minutesAgo(9 * 24 * 60)),
      ],
    };
    expect(applySourceResults(state, [], [], AS_OF).signals.map((s) => s.id)).toEqual(['recent']);
  });

  it('applies review decisions from data/reviews, and a removed decision puts the signal back in the queue', () => {
    const state: State = {
      ...emptyState(),
      signals: [
        signal('s1', 'https://a.example.test/1', minutesAgo(10)),
        { ...signal('s2', 'https://a.example.test/2', minutesAgo(20)), review: 'dismissed' },
        signal('s3', null, minutesAgo(30)),
      ],
    };
    const next = applySourceResults(
      state,
      [],
      [
        { signal_id: 's1', decision: 'promoted', event_id: 'reset-2026-11-21', reviewed_by: 'lead' },
        { signal_id: 's3', decision: 'dismissed', reviewed_by: 'lead' },
      ],
      AS_OF,
    );
    expect(next.signals.map((s) => [s.id, s.review, s.promoted_to])).toEqual([
      ['s1', 'promoted', 'reset-2026-11-21'],
      ['s2', 'awaiting_review', null],
      ['s3', 'dismissed', null],
    ]);
    // A review promoting a signal to an invalid event id is refused when data/reviews is read.
    const invalid = { signal_id: 's1', decision: 'promoted', event_id: 'Not An Id', reviewed_by: 'x' };
    expect(ReviewDecisionSchema.safeParse(invalid).error?.issues[0]?.path).toEqual(['event_id']);
  });

  it('does not modify the state it was given', () => {
    const state: State = { ...emptyState(), signals: [signal('s1', 'https://a.example.test/1', minutesAgo(10))] };
    const copy = structuredClone(state);
    applySourceResults(
      state,
      [
        {
          check: check('feed-1', true, AS_OF.toISOString()),
          signals: [signal('s9', 'https://a.example.test/9', null)],
        },
      ],
      [],
      AS_OF,
    );
    expect(state).toEqual(copy);
  });
});

describe('an announced reset from either tracker', () => {
  const announcement = (id: string, scheduled_for: string) => ({
    id,
    upstream_id: id,
    type: 'global_reset' as const,
    announced_at: '2026-11-21T11:00:00Z',
    scheduled_for,
    text: 'Your Codex and ChatGPT Work reset will land at 6pm PST.',
    source: { platform: 'X', url: `https://x.com/thsottiaux/status/${id}` },
    first_seen_at: '2026-11-21T11:00:00Z',
  });
  const result = (kind: 'tracker_status' | 'reset_timeline', a: ReturnType<typeof announcement> | null) => ({
    check: { ...check('reset-tracker', true, AS_OF.toISOString()), source: kind, kind },
    announcement: a,
  });

  it("takes codex-reset.com's announced window when codex-resets.com announces none, and names where it came from", () => {
    const timeline = announcement('2094144275957350900', '2026-11-22T02:00:00Z');
    const s = applySourceResults(
      emptyState(),
      [result('tracker_status', null), result('reset_timeline', timeline)],
      [],
      AS_OF,
    );
    expect(s.announcement).toMatchObject({ id: timeline.id, origin: 'reset_timeline' });
  });

  it("keeps codex-resets.com's scheduled reset first when it has one", () => {
    const first = announcement('2105843926221660585', '2026-11-21T17:00:00Z');
    const timeline = announcement('2094144275957350900', '2026-11-22T02:00:00Z');
    const s = applySourceResults(
      emptyState(),
      [result('tracker_status', first), result('reset_timeline', timeline)],
      [],
      AS_OF,
    );
    expect(s.announcement).toMatchObject({ id: first.id });
    expect(s.announcement?.origin).toBeUndefined();
  });
});
