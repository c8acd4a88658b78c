// Pure: the tracker's announced, not yet applied, reset: whether it is still upcoming or overdue, and what it does to
// the forecast. "We will reset everyone's limits at 10am PT today" says more about the next 24 hours than any history.
import { z } from 'zod';
import { formatInstant } from '../contract.ts';
import { HOUR_MS } from './climatology.ts';
import { DAY_MS, eventMs, normalizeUrl } from './events.ts';
import { AWAITING_REVIEW, capText, type Announcement, type Event, type Signal, type State } from './schemas.ts';
import { countsAsGlobal } from './reach.ts';

/** The model's input: the tracker's `scheduled_reset` (or any announced upcoming reset). */
export type AnnouncedReset = Pick<Announcement, 'id' | 'scheduled_for' | 'announced_at'>;

/** A scheduled time up to this far in the past still counts while no reset is recorded: rollouts run late. */
export const ANNOUNCEMENT_OVERDUE_GRACE_MS = 6 * HOUR_MS;
/** A recorded reset this close before a post's time still counts for it (clock skew between sources). */
const POST_SKEW_MS = 60_000;
/** An `ahead` post that names no time counts as followed when a reset lands within this long. */
const FOLLOW_THROUGH_DEFAULT_HOURS = 48;
const TWO_WEEKS_HOURS = 24 * 14;

/** data/announcement-review.json: each reviewed post, does it promise a reset for later, or report one made now? */
export const AnnouncementReviewFileSchema = z.strictObject({
  rule: z.string().min(1),
  reviewed_by: z.string().min(1),
  reviewed_at: z.iso.date(),
  posts: z
    .array(
      z.strictObject({
        post_id: z.string().regex(/^\d{1,20}$/),
        /** The archive record the post is (the ledger row citing it). */
        record_id: z.string().min(1).max(200),
        announced_at: z.iso.datetime(),
        /** `ahead`: promised for later ("in the next hour"); `done_now`: made and propagating ("We have reset"). */
        classification: z.enum(['ahead', 'done_now']),
        quote: z.string().min(1).max(1000),
        /** The window the post promises, in hours; null when it names none ("in a bit"): then FOLLOW_THROUGH_DEFAULT_HOURS. */
        due_within_hours: z.number().positive().max(TWO_WEEKS_HOURS).nullable(),
        /** False when the post also reports a reset made now and promises another: its own record is not the promised one. */
        record_is_the_promised_reset: z.boolean(),
      }),
    )
    .max(10_000),
});

export type AnnouncementReview = z.infer<typeof AnnouncementReviewFileSchema>['posts'][number];

/** Whether a recorded reset can be the one an announcement promised (not the post's own "done now" reset). */
export const promisedBy = (a: AnnouncementReview, r: { id: string }) =>
  a.record_is_the_promised_reset || r.id !== a.record_id;

export const dueMs = (a: AnnouncementReview) =>
  Date.parse(a.announced_at) + (a.due_within_hours ?? FOLLOW_THROUGH_DEFAULT_HOURS) * HOUR_MS;

/**
 * Follow-through of `ahead` announcements whose promised window had closed by asOf: followed when a global reset known
 * at asOf landed inside it. A promise that fell through may be missing from a reset ledger, so this leans optimistic.
 */
export function pastAnnouncements(events: readonly Event[], asOfMs: number, review: readonly AnnouncementReview[]) {
  const resets = events.filter((e) => countsAsGlobal(e) && eventMs(e) <= asOfMs);
  const closed = review.filter((a) => a.classification === 'ahead' && dueMs(a) <= asOfMs);
  const followed = closed.filter((a) =>
    resets.some(
      (r) => promisedBy(a, r) && eventMs(r) >= Date.parse(a.announced_at) - POST_SKEW_MS && eventMs(r) <= dueMs(a),
    ),
  );
  return { followed: followed.length, sample_size: closed.length };
}

/** Beta(1, 1) (uniform) prior, which does not assume success: the posterior mean (followed + 1) / (n + 2). */
export const followThrough = (past: { followed: number; sample_size: number }): number =>
  (past.followed + 1) / (past.sample_size + 2);

/**
 * The announcement's effect at asOf; null when none, or spent (a global reset since is recorded). A scheduled time in
 * (asOf - grace, asOf + h] is inside horizon h; an untimed one changes no probability.
 */
export function announcementEffect(
  events: readonly Event[],
  asOfMs: number,
  announced: AnnouncedReset | null,
  review: readonly AnnouncementReview[],
) {
  if (announced === null) return null;
  const announcedMs = Date.parse(announced.announced_at);
  if (!Number.isFinite(announcedMs) || announcedMs > asOfMs) return null;
  const spent = events.some(
    (e) => countsAsGlobal(e) && eventMs(e) >= announcedMs - POST_SKEW_MS && eventMs(e) <= asOfMs,
  );
  if (spent) return null;
  const scheduledMs = announced.scheduled_for === null ? NaN : Date.parse(announced.scheduled_for);
  const inside = (h: number) =>
    scheduledMs > asOfMs - ANNOUNCEMENT_OVERDUE_GRACE_MS && scheduledMs <= asOfMs + h * HOUR_MS;
  const past = pastAnnouncements(events, asOfMs, review);
  return {
    id: announced.id,
    scheduled_for: announced.scheduled_for,
    announced_at: announced.announced_at,
    inside_24h: inside(24),
    inside_48h: inside(48),
    follow_through: followThrough(past),
    ...past,
  };
}

/** Later than this after its time (or a day after an untimed one), an unfulfilled announcement awaits review. */
export const OVERDUE_AFTER_MS = 3 * HOUR_MS;

/** Fulfilled by the same record (id or same_as), one citing the same post, or a reset of its type at or after it. */
function isFulfilled(a: Announcement, events: readonly Event[], asOf: Date): boolean {
  const post = a.source === null ? null : normalizeUrl(a.source.url);
  return events.some(
    (e) =>
      [e.id, ...e.same_as].includes(a.id) ||
      (post !== null && e.sources.some((s) => normalizeUrl(s.url) === post)) ||
      (e.type === (a.type ?? 'global_reset') &&
        eventMs(e) >= Date.parse(a.announced_at) &&
        eventMs(e) <= asOf.getTime()),
  );
}

/** The announced reset still ahead (or landing late, within OVERDUE_AFTER_MS), or the one overdue past it. */
export function computeUpcoming(a: Announcement | null, events: readonly Event[], asOf: Date) {
  // An as-of build shows nothing first seen after asOf.
  if (a === null || Date.parse(a.first_seen_at) > asOf.getTime() || isFulfilled(a, events, asOf))
    return { upcoming: null, overdue: null };
  const due = a.scheduled_for !== null ? Date.parse(a.scheduled_for) : Date.parse(a.announced_at) + DAY_MS;
  return asOf.getTime() > due + OVERDUE_AFTER_MS ? { upcoming: null, overdue: a } : { upcoming: a, overdue: null };
}

/** The state with the overdue announcement (if any) among the signals awaiting review, once. */
export function withOverdueAnnouncement(state: State, events: readonly Event[], asOf: Date): State {
  const { overdue: a } = computeUpcoming(state.announcement, events, asOf);
  if (a === null) return state;
  const id = `overdue-${a.id}`.slice(0, 120);
  if (state.signals.some((s) => s.id === id)) return state;
  const signal: Signal = {
    id,
    kind: 'overdue_announcement',
    source: 'tracker-status',
    title: capText(a.text, 300),
    excerpt: capText(a.text, 1000),
    url: a.source?.url ?? null,
    published_at: a.announced_at,
    first_seen_at: formatInstant(asOf),
    ...AWAITING_REVIEW,
  };
  return { ...state, signals: [signal, ...state.signals] };
}
