// Pure: one post, one event. The tracker mislabels some posts (two banked grants of 2026-07 are `regular` there), so a
// tracker record takes the type curated history gives the post it cites, and the disagreement waits as a signal for a
// review (data/tracker-review.json); so does a tracker-only global reset on a day curated history has one on.
import { z } from 'zod';
import { formatInstant, type EventType } from '../contract.ts';
import { citedPost, citedPosts } from './evidence.ts';
import { eventDate, eventMs, MERGE_WINDOW_MS, reviewedBy } from './events.ts';
import { AWAITING_REVIEW, EventIdSchema, EventTypeSchema, capText, type Event, type Signal } from './schemas.ts';

/**
 * A reviewed decision about the tracker record citing X post `post_id`: `type` (the curated type stands),
 * `same_reset` (a later post about curated event `event_id`, folded into it) or `distinct` (a reset of its own).
 */
export const TrackerReviewSchema = z
  .strictObject({
    post_id: z.string().regex(/^\d{1,20}$/),
    decision: z.enum(['type', 'same_reset', 'distinct']),
    type: EventTypeSchema.optional(),
    event_id: EventIdSchema.optional(),
    why: z.string().min(1),
    /** The posts' own words the decision rests on, quoted. */
    evidence: z.array(z.string().min(1)).min(1),
    reviewed_by: z.string().min(1),
    reviewed_at: z.iso.date(),
  })
  .refine((d) => d.decision !== 'type' || d.type !== undefined, {
    path: ['type'],
    message: 'a type decision names the type',
  })
  .refine((d) => d.decision !== 'same_reset' || d.event_id !== undefined, {
    path: ['event_id'],
    message: 'a same_reset decision names the curated event',
  });
export type TrackerReview = z.infer<typeof TrackerReviewSchema>;

export const TrackerReviewFileSchema = z.strictObject({
  rule: z.string().min(1),
  decisions: z.array(TrackerReviewSchema),
});

const postOf = (e: Event): string | null => citedPost(e.sources)?.id ?? null;

/** An open question for a reviewer from `source`, first seen at asOf (model/agreement.ts asks them too). */
export const question = (
  source: string,
  asOf: Date,
  q: Omit<Signal, 'source' | 'published_at' | 'first_seen_at' | 'review' | 'promoted_to'>,
): Signal => ({
  source,
  published_at: null,
  first_seen_at: formatInstant(asOf),
  ...AWAITING_REVIEW,
  ...q,
});

function disagreement(e: Event, curated: Event, post: string, asOf: Date): Signal {
  const typeName = (t: EventType) => t.replace('_', ' ');
  return question('reset-tracker', asOf, {
    id: `type-disagreement-${post}`,
    kind: 'type_disagreement',
    title: `The tracker calls post ${post} a ${typeName(e.type)}; curated history calls it a ${typeName(curated.type)}`,
    excerpt: capText(e.evidence_text || curated.evidence_text, 1000),
    url: e.sources[0]?.url ?? curated.sources[0]?.url ?? null,
    curated_type: curated.type,
    tracker_type: e.type,
    event_ids: [curated.id, e.id],
  });
}

function sameDay(e: Event, curated: readonly Event[], asOf: Date): Signal {
  const date = eventDate(e);
  return question('reset-tracker', asOf, {
    id: `same-day-resets-${date}-${postOf(e) ?? e.id}`.slice(0, 120),
    kind: 'same_day_resets',
    title: `Two global resets on ${date}? The tracker lists one that curated history does not hold`,
    excerpt: capText(e.evidence_text, 1000),
    url: e.sources[0]?.url ?? null,
    event_ids: [...curated.map((c) => c.id), e.id].slice(0, 10),
  });
}

/**
 * The tracker's events placed against curated history as of `asOf`: `curated` naming in `same_as` the tracker records
 * folded into it, the `tracker` events that stay their own, and the `signals` left for review.
 */
export function reconcileTracker(
  curated: readonly Event[],
  tracker: readonly Event[],
  reviews: readonly TrackerReview[],
  asOf: Date,
) {
  const decided = new Map(reviews.filter((r) => reviewedBy(r.reviewed_at, asOf)).map((r) => [r.post_id, r]));
  const byPost = new Map<string, Event>();
  for (const c of curated) for (const id of citedPosts(c.sources)) if (!byPost.has(id)) byPost.set(id, c);
  const curatedIds = new Set(curated.map((c) => c.id));
  const signals: Signal[] = [];
  // A record folded into a curated event is no listing of the tracker's any more: its id joins that event's same_as,
  // so mergeEvents never treats it as a second reset the tracker lists.
  const folded = new Map<string, string[]>();
  const fold = (target: string, e: Event) => void folded.set(target, [...(folded.get(target) ?? []), e.id]);
  const placed: Event[] = [];
  for (const e of tracker) {
    const post = postOf(e);
    const review = post === null ? undefined : decided.get(post);
    const holder = post === null ? undefined : byPost.get(post);
    if (review?.decision === 'same_reset' && curatedIds.has(review.event_id!)) fold(review.event_id!, e);
    else if (holder === undefined || holder.type === e.type) placed.push(e);
    else {
      if (review?.decision !== 'type' || review.type !== holder.type)
        signals.push(disagreement(e, holder, post!, asOf));
      fold(holder.id, e);
    }
  }
  // Same-day global resets: a tracker-only one (no post curated history holds, no review) on a day curated history has one.
  const absorbed = new Set(curated.flatMap((c) => c.same_as));
  for (const e of placed) {
    const post = postOf(e);
    if (e.type !== 'global_reset' || absorbed.has(e.id) || (post !== null && (byPost.has(post) || decided.has(post))))
      continue;
    const at = eventMs(e);
    // One within the merge window is folded into the curated record by mergeEvents: the same reset, nothing to ask.
    const others = curated.filter(
      (c) => c.type === 'global_reset' && eventDate(c) === eventDate(e) && Math.abs(eventMs(c) - at) > MERGE_WINDOW_MS,
    );
    if (others.length > 0) signals.push(sameDay(e, others, asOf));
  }
  const withFolded = curated.map((c) => {
    const ids = folded.get(c.id);
    return ids === undefined ? c : { ...c, same_as: [...new Set([...c.same_as, ...ids])].sort() };
  });
  return { curated: withFolded, tracker: placed, signals };
}

/** Open questions held at once (one source's share of the queue, as apply.ts); the rest wait their turn. */
export const MAX_RECONCILE_SIGNALS = 100;

/** The review queue's kinds this module and model/agreement.ts raise: re-derived every run, kept while open, gone once settled. */
const RECONCILE_SIGNAL_KINDS: ReadonlySet<Signal['kind']> = new Set([
  'type_disagreement',
  'same_day_resets',
  'tracker_missing',
]);

/** The signals with this run's open questions (those already waiting keep first_seen_at); settled ones leave. */
export function withReconcileSignals(signals: readonly Signal[], previous: readonly Signal[], open: readonly Signal[]) {
  const seen = new Map(previous.filter((s) => RECONCILE_SIGNAL_KINDS.has(s.kind)).map((s) => [s.id, s.first_seen_at]));
  const kept = signals.filter((s) => !RECONCILE_SIGNAL_KINDS.has(s.kind));
  const asked = [...open].sort((a, b) => a.id.localeCompare(b.id)).slice(0, MAX_RECONCILE_SIGNALS);
  return [...asked.map((s) => ({ ...s, first_seen_at: seen.get(s.id) ?? s.first_seen_at })), ...kept];
}
