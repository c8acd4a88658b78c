// Pure: whom a reset reached and when it lands, read from the post's own words by a reviewer (data/reach-review.json).
// A field the post does not state, and every field of an event nobody reviewed, is "not stated" (null), never a guess.
import { z } from 'zod';
import { toIso } from './climatology.ts';
import { eventDate, eventMs, reviewedBy } from './events.ts';
import { EventIdSchema, LIMITS, PLANS, PRODUCTS, type Event, type Reach } from './schemas.ts';

/** The plans a user can hold (what a client asks about); `all` and `all_paid` are only what a post says. */
export const USER_PLANS = ['free', 'go', 'plus', 'pro', 'business', 'enterprise', 'edu'] as const;
export type UserPlan = (typeof USER_PLANS)[number];
type PlanAnswer = 'yes' | 'no' | 'not_stated';

const Quote = z.string().min(1).max(500);
const WEEK_MINUTES = 7 * 24 * 60;
const read = <T extends z.ZodType>(value: T) => z.strictObject({ value, quote: Quote }).nullable();

/** One reviewed event: each field is what the post states with the words it was read from, or null (not stated). */
const ReachDecisionSchema = z.strictObject({
  plans: read(z.array(z.enum(PLANS)).min(1).max(PLANS.length)),
  products: read(z.array(z.enum(PRODUCTS)).min(1).max(PRODUCTS.length)),
  models: read(z.array(z.string().min(1).max(60)).min(1).max(10)),
  cohort: read(z.number().int().positive()),
  limits: read(z.array(z.enum(LIMITS)).min(1).max(LIMITS.length)),
  /** The landing window in the post's words; `within_minutes` null when they bound nothing exactly ("in a bit"). */
  landing: z
    .strictObject({
      as_written: Quote,
      within_minutes: z.number().int().positive().max(WEEK_MINUTES).nullable(),
      quote: Quote,
    })
    .nullable(),
  why: z.string().min(1).max(2000),
  reviewed_by: z.string().min(1).max(80),
  reviewed_at: z.iso.date(),
});
export type ReachDecision = z.infer<typeof ReachDecisionSchema>;

export const ReachReviewFileSchema = z.strictObject({
  rule: z.string().min(1),
  events: z.record(EventIdSchema, ReachDecisionSchema),
});

const UNSTATED = { value: null, quote: null };

/** A reviewed decision as the event's reach, its landing window from `post` (the post's instant); null: not stated. */
function toReach(d: ReachDecision | null, post: string | null): Reach {
  // The landing window starts at the post and ends `within_minutes` later.
  const minutes = d?.landing?.within_minutes ?? null;
  const until = post !== null && minutes !== null ? toIso(Date.parse(post) + minutes * 60_000) : null;
  return {
    reviewed: d !== null,
    plans: d?.plans ?? UNSTATED,
    products: d?.products ?? UNSTATED,
    models: d?.models ?? UNSTATED,
    cohort: d?.cohort ?? UNSTATED,
    limits: d?.limits ?? UNSTATED,
    landing: d?.landing
      ? { from: post, until, as_written: d.landing.as_written, quote: d.landing.quote }
      : { from: null, until: null, as_written: null, quote: null },
  };
}
const NOT_STATED: Reach = Object.freeze(toReach(null, null));

/** Only resets have a reach: a policy change reaches no one's limits once. */
export const hasReach = (e: Event): boolean => e.type === 'global_reset' || e.type === 'banked_grant';

/** Every quote of a decision that is not a substring of the event's evidence text (empty: all are its words). */
export function misquotes(d: ReachDecision, evidenceText: string): string[] {
  const quotes = [d.plans, d.products, d.models, d.cohort, d.limits, d.landing].map((f) => f?.quote);
  return [...quotes, d.landing?.as_written].filter((q): q is string => q !== undefined && !evidenceText.includes(q));
}

/** The resets with their reach as a build as of `asOf` knows it ("not stated" before the decision's date). */
export function attachReach(events: readonly Event[], decisions: Readonly<Record<string, ReachDecision>>, asOf: Date) {
  return events.map((e) => {
    if (!hasReach(e)) return e;
    const d = decisions[e.id];
    if (d === undefined || !reviewedBy(d.reviewed_at, asOf)) return { ...e, reach: NOT_STATED };
    const post = e.announced_at !== null && e.time_precision !== 'day' ? e.announced_at : null;
    return { ...e, reach: toReach(d, post) };
  });
}

/** The reach an event carries (attachReach), or "not stated" when it carries none. */
export const reachOf = (e: Event): Reach => e.reach ?? NOT_STATED;

/** The end of an event's landing window when it is open at `now` (the post's words bound it), else null. */
function landingUntil(e: Event, now: number): string | null {
  const { from, until } = reachOf(e).landing;
  return from !== null && until !== null && Date.parse(from) <= now && now < Date.parse(until) ? until : null;
}

/** A post naming some plans, a model or a cohort narrows a reset: it is not a global one (docs/reach.md). */
export function isNarrowed(r: Reach): boolean {
  const plans = r.plans.value;
  const partialPlans = plans !== null && !plans.includes('all') && !plans.includes('all_paid');
  return partialPlans || r.models.value !== null || r.cohort.value !== null;
}

/** The rule for what counts as a global reset (today's state, the forecast's ground truth, accuracy): docs/reach.md. */
export const countsAsGlobal = (e: Event): boolean => e.type === 'global_reset' && !isNarrowed(reachOf(e));

/** Whether a reset reached a user of `plan`, by the plans its post names ('not_stated' when it names none). */
export function reachesPlan(r: Reach, plan: UserPlan): PlanAnswer {
  const plans = r.plans.value;
  if (plans === null) return 'not_stated';
  if (plans.includes('all') || plans.includes(plan)) return 'yes';
  return plans.includes('all_paid') && plan !== 'free' ? 'yes' : 'no';
}

/** Today's resets per plan: what /api/latest and /api/status say about whom today's resets reached. */
export type ReachToday = NonNullable<ReturnType<typeof computeReachToday>>;

/**
 * Whom today's `global_reset` events (narrowed ones included: landed today by asOf, or landing now) reached per plan,
 * and the latest end of an open landing window; null when there is none.
 */
export function computeReachToday(events: readonly Event[], asOf: Date) {
  const now = asOf.getTime();
  const date = asOf.toISOString().slice(0, 10);
  const todays = events.filter(
    (e) => e.type === 'global_reset' && ((eventMs(e) <= now && eventDate(e) === date) || landingUntil(e, now) !== null),
  );
  if (todays.length === 0) return null;
  const plans = Object.fromEntries(
    USER_PLANS.map((p) => {
      const answers = todays.map((e) => reachesPlan(reachOf(e), p));
      return [p, answers.includes('yes') ? 'yes' : answers.includes('not_stated') ? 'not_stated' : 'no'];
    }),
  ) as Record<UserPlan, PlanAnswer>;
  const ends = todays.flatMap((e) => landingUntil(e, now) ?? []).sort();
  return { event_ids: todays.map((e) => e.id), plans, propagating_until: ends.at(-1) ?? null };
}

/**
 * While a global reset is landing (its post's window open) or announced (`upcoming`), using a banked reset may waste
 * it: a statement of what was announced, never a forecast.
 */
export function bankedResetWarning(
  events: readonly Event[],
  upcoming: { type: Event['type'] | null; scheduled_for: string | null } | null,
  asOf: Date,
): { kind: 'announced' | 'landing'; at: string | null } | null {
  const now = asOf.getTime();
  const landing = events.filter(countsAsGlobal).flatMap((e) => landingUntil(e, now) ?? []);
  if (landing.length > 0) return { kind: 'landing', at: landing.sort().at(-1)! };
  return upcoming?.type === 'global_reset' ? { kind: 'announced', at: upcoming.scheduled_for } : null;
}
