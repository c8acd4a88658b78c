// One post, one event (model/reconcile.ts): a tracker record never overrides curated history, disagreements and
// same-day resets wait for a reviewer, and a review decision settles them from its own date on.
import { describe, expect, it } from 'vitest';
import { mergeEvents } from '../../builder/model/events.ts';
import {
  MAX_RECONCILE_SIGNALS,
  reconcileTracker,
  TrackerReviewSchema,
  withReconcileSignals,
  type TrackerReview,
} from '../../builder/model/reconcile.ts';
import type { Event } from '../../builder/model/schemas.ts';
import { testEvent } from '../helpers/events.ts';

const POST = '2076418567143408112';
const url = (id: string) => `https://x.com/someone/status/${id}`;
const curated = (at: string, type: Event['type'], post: string): Event => ({
  ...testEvent(at, type),
  id: `ledger-${post}`,
  sources: [{ platform: 'X', url: url(post) }],
});
const tracker = (at: string, type: Event['type'], post: string | null, id = `sr-${post}`): Event => ({
  ...testEvent(at, type),
  id,
  origin: 'service_resets',
  sources: post === null ? [] : [{ platform: 'X', url: url(post) }],
});
const review = (r: Partial<TrackerReview>): TrackerReview =>
  TrackerReviewSchema.parse({
    post_id: POST,
    decision: 'type',
    type: 'banked_grant',
    why: 'w',
    evidence: ['"quoted"'],
    reviewed_by: 'r',
    reviewed_at: '2026-11-27',
    ...r,
  });
const asOf = new Date('2026-11-28T00:00:00Z');

describe('reconcileTracker', () => {
  it('folds a tracker record of another type into the curated event citing its post, and asks about it', () => {
    const c = curated('2026-07-12T21:28:59Z', 'banked_grant', POST);
    const t = tracker('2026-07-12T21:28:59Z', 'global_reset', POST);
    const r = reconcileTracker([c], [t], [], asOf);
    expect(r.tracker).toEqual([]);
    expect(r.curated[0]!.same_as).toEqual([t.id]);
    expect(r.signals).toEqual([
      expect.objectContaining({
        id: `type-disagreement-${POST}`,
        kind: 'type_disagreement',
        curated_type: 'banked_grant',
        tracker_type: 'global_reset',
        event_ids: [c.id, t.id],
      }),
    ]);
    expect(mergeEvents(r.curated, r.tracker).map((e) => [e.id, e.type])).toEqual([[c.id, 'banked_grant']]);
  });

  it('is settled by a type decision from its reviewed_at date on, not before', () => {
    const c = curated('2026-07-12T21:28:59Z', 'banked_grant', POST);
    const t = tracker('2026-07-12T21:28:59Z', 'global_reset', POST);
    expect(reconcileTracker([c], [t], [review({})], asOf).signals).toEqual([]);
    expect(reconcileTracker([c], [t], [review({})], new Date('2026-11-26T23:59:59Z')).signals).toHaveLength(1);
    // A decision naming another type than curated history's leaves the question open: the data must be fixed.
    expect(reconcileTracker([c], [t], [review({ type: 'global_reset' })], asOf).signals).toHaveLength(1);
  });

  it('leaves a record of the same type to mergeEvents, and one citing no curated post alone', () => {
    const c = curated('2026-07-14T19:34:54Z', 'global_reset', '2077114635308986427');
    const same = tracker('2026-07-14T19:34:54Z', 'global_reset', '2077114635308986427');
    const other = tracker('2026-08-01T00:00:00Z', 'global_reset', '2083395449814229287');
    const r = reconcileTracker([c], [same, other], [], asOf);
    expect(r.tracker).toEqual([same, other]);
    expect(r.signals).toEqual([]);
  });

  it('asks whether a day had two global resets when the tracker lists one curated history does not hold, hours apart', () => {
    const c = curated('2026-09-12T03:20:36Z', 'global_reset', '2098612714704891959');
    const later = tracker('2026-09-12T08:09:17Z', 'global_reset', '2098685367058612394');
    const near = tracker('2026-09-12T04:00:00Z', 'global_reset', null, 'sr-near');
    const r = reconcileTracker([c], [later, near], [], asOf);
    expect(r.signals).toEqual([
      expect.objectContaining({
        kind: 'same_day_resets',
        id: 'same-day-resets-2026-09-12-2098685367058612394',
        event_ids: [c.id, later.id],
      }),
    ]);
    // same_reset folds it into the curated event; distinct keeps it as a reset of its own; both settle the question.
    const folded = reconcileTracker(
      [c],
      [later],
      [review({ post_id: '2098685367058612394', decision: 'same_reset', event_id: c.id })],
      asOf,
    );
    expect(folded).toMatchObject({ tracker: [], signals: [] });
    expect(folded.curated[0]!.same_as).toEqual([later.id]);
    const distinct = reconcileTracker(
      [c],
      [later],
      [review({ post_id: '2098685367058612394', decision: 'distinct' })],
      asOf,
    );
    expect(distinct).toMatchObject({ tracker: [later], signals: [] });
  });

  it('asks at most MAX_RECONCILE_SIGNALS questions at once, however many records a tracker mislabels', () => {
    const posts = Array.from({ length: 150 }, (_, i) => String(2076418567143408112n + BigInt(i) * 4194304n));
    const curatedEvents = posts.map((p, i) => ({
      ...curated(`2026-07-12T${String(i % 24).padStart(2, '0')}:00:00Z`, 'banked_grant', p),
      id: `ledger-${i}`,
    }));
    const trackerEvents = posts.map((p, i) =>
      tracker(`2026-07-12T${String(i % 24).padStart(2, '0')}:00:00Z`, 'global_reset', p),
    );
    const open = reconcileTracker(curatedEvents, trackerEvents, [], asOf).signals;
    expect(open).toHaveLength(150);
    expect(withReconcileSignals([], [], open)).toHaveLength(MAX_RECONCILE_SIGNALS);
  });

  it('keeps an open question in the queue with its first sighting, however long, and drops it once settled', () => {
    const c = curated('2026-07-12T21:28:59Z', 'banked_grant', POST);
    const t = tracker('2026-07-12T21:28:59Z', 'global_reset', POST);
    const first = reconcileTracker([c], [t], [], new Date('2026-08-01T00:00:00Z')).signals;
    const month = reconcileTracker([c], [t], [], new Date('2026-09-01T00:00:00Z')).signals;
    const kept = withReconcileSignals([], first, month);
    expect(kept).toEqual([expect.objectContaining({ first_seen_at: '2026-08-01T00:00:00Z' })]);
    expect(withReconcileSignals(kept, kept, [])).toEqual([]);
  });
});
