// Pure: what an announced, not yet applied, global reset does to the forecast. "We will reset everyone's limits
// at 10am PT today" says more about the next 24 hours than any history can.
import { z } from 'zod';
import { HOUR_MS } from './climatology.ts';
import { eventMs } from './events.ts';
import type { Event } from './schemas.ts';
import { countsAsGlobal } from './reach.ts';

/** The model's input: the tracker's `scheduled_reset` (or any announced upcoming reset), times ISO 8601 UTC. */
export interface AnnouncedReset {
  id: string;
  /** When the announcement says it lands; null when it names no time. */
  scheduled_for: string | null;
  announced_at: string;
}

export interface AnnouncementEffect extends AnnouncedReset {
  inside_24h: boolean;
  inside_48h: boolean;
  /** Estimated chance an announced reset follows: (followed + 1) / (sample_size + 2), the Beta(1, 1) posterior mean. */
  follow_through: number;
  /** Reviewed `ahead` announcements whose window had closed by asOf that were followed by a reset, and how many. */
  followed: number;
  sample_size: number;
}

/** A scheduled time up to this far in the past still counts while no reset is recorded: rollouts run late. */
export const ANNOUNCEMENT_OVERDUE_GRACE_MS = 6 * HOUR_MS;
/** A recorded reset this close before a post's time still counts for it (clock skew between sources). */
const POST_SKEW_MS = 60_000;

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
        /**
         * `ahead`: the reset has not been applied and is promised for a later time ("will be fully reset again in the
         * next hour"). `done_now`: the reset was made and is only propagating ("We have reset ...", "Propagating").
         */
        classification: z.enum(['ahead', 'done_now']),
        /** The post's own words the classification rests on. */
        quote: z.string().min(1).max(1000),
        /** The window the post promises, in hours; null when it names none ("in a bit"): then FOLLOW_THROUGH_DEFAULT_HOURS. */
        due_within_hours: z
          .number()
          .positive()
          .max(24 * 14)
          .nullable(),
        /** False when the post also reports a reset made now and promises another: its own record is not the promised one. */
        record_is_the_promised_reset: z.boolean(),
      }),
    )
    .max(10_000),
});

export type AnnouncementReview = z.infer<typeof AnnouncementReviewFileSchema>['posts'][number];

/** An `ahead` post that names no time counts as followed when a reset lands within this long. */
const FOLLOW_THROUGH_DEFAULT_HOURS = 48;

/** Whether a recorded reset can be the one an announcement promised (not the post's own "done now" reset). */
export const promisedBy = (a: AnnouncementReview, r: { id: string }) =>
  a.record_is_the_promised_reset || r.id !== a.record_id;

export const dueMs = (a: AnnouncementReview) =>
  Date.parse(a.announced_at) + (a.due_within_hours ?? FOLLOW_THROUGH_DEFAULT_HOURS) * HOUR_MS;

/**
 * Follow-through of `ahead` announcements as known at asOf: only posts whose promised window had closed by asOf
 * count (their outcome is known then), each followed when a global reset known at asOf landed inside it. `done_now`
 * posts are their own outcome and never count. The records are a reset ledger, so a promise that fell through
 * may be missing from it: the estimate still leans optimistic, and the prior keeps it off certainty.
 */
export function pastAnnouncements(
  events: readonly Event[],
  asOfMs: number,
  review: readonly AnnouncementReview[],
): { followed: number; sample_size: number } {
  const resets = events
    .filter(countsAsGlobal)
    .map((e) => ({ id: e.id, ms: eventMs(e) }))
    .filter((r) => Number.isFinite(r.ms) && r.ms <= asOfMs);
  let n = 0;
  let followed = 0;
  for (const a of review) {
    if (a.classification !== 'ahead') continue;
    const from = Date.parse(a.announced_at);
    const due = dueMs(a);
    if (!Number.isFinite(from) || due > asOfMs) continue;
    n++;
    if (resets.some((r) => promisedBy(a, r) && r.ms >= from - POST_SKEW_MS && r.ms <= due)) followed++;
  }
  return { followed, sample_size: n };
}

/** Beta(1, 1) (uniform) prior, which does not assume success: the posterior mean (followed + 1) / (n + 2). */
export function followThrough(past: { followed: number; sample_size: number }): number {
  return (past.followed + 1) / (past.sample_size + 2);
}

/**
 * The announcement's effect at asOf, or null when there is none or a global reset at or after its announcement is
 * already recorded (the announcement is spent). A scheduled time in (asOf - grace, asOf + h] is inside horizon h;
 * an announcement without a time is reported but changes no probability.
 */
export function announcementEffect(
  events: readonly Event[],
  asOfMs: number,
  announced: AnnouncedReset | null,
  review: readonly AnnouncementReview[] = [],
): AnnouncementEffect | null {
  if (announced === null) return null;
  const announcedMs = Date.parse(announced.announced_at);
  if (!Number.isFinite(announcedMs) || announcedMs > asOfMs) return null;
  const spent = events.some(
    (e) => countsAsGlobal(e) && eventMs(e) >= announcedMs - POST_SKEW_MS && eventMs(e) <= asOfMs,
  );
  if (spent) return null;
  const scheduledMs = announced.scheduled_for === null ? NaN : Date.parse(announced.scheduled_for);
  const inside = (h: number) =>
    Number.isFinite(scheduledMs) &&
    scheduledMs > asOfMs - ANNOUNCEMENT_OVERDUE_GRACE_MS &&
    scheduledMs <= asOfMs + h * HOUR_MS;
  const past = pastAnnouncements(events, asOfMs, review);
  return {
    id: announced.id,
    scheduled_for: announced.scheduled_for,
    announced_at: announced.announced_at,
    inside_24h: inside(24),
    inside_48h: inside(48),
    follow_through: followThrough(past),
    followed: past.followed,
    sample_size: past.sample_size,
  };
}
