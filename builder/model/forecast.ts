// Pure: the chance of a global reset in the next 24 h and 48 h, from the global resets known at `asOf`.
// No clock, no I/O: the caller passes `asOf`, and nothing later than `asOf` is ever read.
import { announcementEffect, type AnnouncedReset, type AnnouncementReview } from './announcement.ts';
import {
  HORIZONS_HOURS,
  HOUR_MS,
  TRAILING_CLIMATOLOGY_DAYS,
  checkpointAtOrAfter,
  toIso,
  trailingClimatology,
  windowFrequency,
} from './climatology.ts';
import { DAY_MS, eventMs, eventTime } from './events.ts';
import type { Detail, Event, IssuedForecast } from './schemas.ts';
import { countsForForecast } from './agreement.ts';

/**
 * Below ten global resets no probability is published: the exact 95% interval of a Poisson count of 10 spans about
 * 0.48x..1.84x the estimate, of 5 about 0.32x..2.33x ("a reset every 4 days" and "one a month" would both fit).
 */
export const MIN_SAMPLE_RESETS = 10;
/** A burst of resets inside a few days says nothing about the long-run rate; a month of windows is the floor. */
const MIN_HISTORY_DAYS = 30;
/** Trailing history both the climatology and the model look at (one year of the product's life). */
const HISTORY_WINDOW_DAYS = 365;
/**
 * Probabilities are clipped to [1%, 99%]: with a few dozen events nobody can claim better than 1-in-100 odds, and an
 * exact 0 or 1 would score an unbounded log-loss and read as certainty to a user.
 */
export const MIN_PROBABILITY = 0.01;
export const MAX_PROBABILITY = 0.99;

export const clipProbability = (p: number): number => Math.min(MAX_PROBABILITY, Math.max(MIN_PROBABILITY, p));

/** The shipped model (research/ scores it against the other candidates; `npm run backtest`). */
export const MODEL_VERSION = 'poisson-v1';
/** The rate's window, fixed a priori (one quarter) and never tuned. */
const POISSON_TRAILING_DAYS = 90;

/** poisson-v1: the trailing 90 days' resets (or all, if shorter) as a Poisson rate: P = 1 - exp(-rate x h), clipped. */
export function poissonProbability(times: readonly number[], asOfMs: number, horizonMs: number): number {
  const spanMs = Math.min(POISSON_TRAILING_DAYS * DAY_MS, asOfMs - times[0]!);
  const from = asOfMs - spanMs;
  // Strictly after `from`: when the window is the whole history, the first reset opens the observation period
  // and counting it too would bias the rate up (n events, but only n - 1 gaps observed).
  const n = times.filter((t) => t > from).length;
  return clipProbability(1 - Math.exp(-(n / spanMs) * horizonMs));
}

/** The trailing climatology /api/accuracy compares the forecast with, beside the all-history one. */
const COMPARED_WITH_DAYS = TRAILING_CLIMATOLOGY_DAYS[1];
/** Sources unobserved for longer than this before asOf withhold the forecast: a gap is not "no reset". */
export const MAX_UNOBSERVED_MS = 6 * HOUR_MS;

/**
 * How long an issued forecast holds (its own `meta.stale_after`): a probability for "the next 24 hours" is about the
 * hours after its issue, so once no build has renewed it the edge withholds it. One hour: the builds run every 15
 * minutes, so it survives three dropped runs, and it is the oldest forecast ResetBench's collector accepts
 * (`max_source_age_hours: 1`, docs/resetbench.md), so the edge never serves a probability the benchmark would refuse
 * as stale. Never longer than that hour.
 */
export const FORECAST_STALE_AFTER_MS = HOUR_MS;

/**
 * Why the edge's expired forecast has no probability: the forecast issued at `issued_at` expired at `since` (its
 * `stale_after`) and no newer one was published. Both as the live document writes them, so every surface says the
 * instants its meta shows.
 */
export const expiredForecastExplanation = (issued_at: string, since: string): Detail => ({
  code: 'expired',
  params: { since, issued_at, hold_minutes: FORECAST_STALE_AFTER_MS / 60_000 },
});

/** All null when the forecast is withheld. */
type Probabilities = Omit<IssuedForecast, 'issued_at' | 'model_version' | 'sample_size'>;
export type Forecast = ReturnType<typeof computeForecast>;

export interface ForecastOptions {
  /** An upcoming reset the tracker says was announced but not yet applied (its `/status` `scheduled_reset`). */
  announced?: AnnouncedReset | null;
  /** The reviewed announcement posts (data/announcement-review.json); only `ahead` ones estimate follow-through. */
  announcementReview?: readonly AnnouncementReview[];
  /** End of the reset sources' observed time (coverage.ts); undefined: not checked (a backtest on a whole archive). */
  coveredUntil?: string | null;
}

/** The global resets (docs/reach.md: the forecast target) in (asOf - HISTORY_WINDOW_DAYS, asOf], oldest first. */
function knownResets(events: readonly Event[], asOfMs: number): Event[] {
  const from = asOfMs - HISTORY_WINDOW_DAYS * DAY_MS;
  const known = events.filter((e) => countsForForecast(e) && eventMs(e) > from && eventMs(e) <= asOfMs);
  return known.sort((a, b) => eventMs(a) - eventMs(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Epoch ms of the global resets a forecast at `asOf` may use, oldest first (research/ scores candidates on them). */
export const resetsKnownAt = (events: readonly Event[], asOf: Date): number[] =>
  knownResets(events, asOf.getTime()).map(eventMs);

/** All-history climatology, on the grid forecasts are scored on: resets cluster, so no Poisson conversion. */
const baseRate = (times: readonly number[], asOfMs: number, h: number): number | null =>
  windowFrequency(times, checkpointAtOrAfter(times[0]!), asOfMs, h * HOUR_MS);

const percent = (p: number) => Math.round(p * 100);
const oneDecimal = (x: number) => Math.round(x * 10) / 10;

/** Why no probability is published at `asOf`, or null when one is. */
function whyWithheld(times: readonly number[], asOfMs: number, lastAt: string | null, opts: ForecastOptions) {
  const historyMs = times.length === 0 ? 0 : asOfMs - times[0]!;
  const enough =
    times.length >= MIN_SAMPLE_RESETS && historyMs >= MIN_HISTORY_DAYS * DAY_MS && baseRate(times, asOfMs, 48) !== null;
  if (!enough) {
    const params = {
      sample_size: times.length,
      min_sample: MIN_SAMPLE_RESETS,
      history_days: oneDecimal(historyMs / DAY_MS),
      min_history_days: MIN_HISTORY_DAYS,
      window_days: HISTORY_WINDOW_DAYS,
    };
    return { code: 'insufficient_data', params };
  }
  if (opts.coveredUntil === undefined) return null;
  const lastMs = times.at(-1)!;
  const observedUntil = opts.coveredUntil === null ? lastMs : Math.max(Date.parse(opts.coveredUntil), lastMs);
  if (asOfMs - observedUntil <= MAX_UNOBSERVED_MS) return null;
  const params = {
    observed_until: toIso(observedUntil),
    gap_days: oneDecimal((asOfMs - observedUntil) / DAY_MS),
    last_global_reset_at: lastAt ?? '',
    sample_size: times.length,
    window_days: HISTORY_WINDOW_DAYS,
  };
  return { code: 'coverage_gap', params };
}

const WITHHELD: Probabilities = {
  probability_24h: null,
  probability_48h: null,
  base_rate_24h: null,
  base_rate_48h: null,
  trailing_base_rate_24h: null,
  trailing_base_rate_48h: null,
  trailing_90d_base_rate_24h: null,
  trailing_90d_base_rate_48h: null,
};

/**
 * The forecast published at `asOf`, from resets at or before it only (a later record never changes it); withheld as
 * null (never 0) with the reason. An announced reset inside a horizon raises it to the announcements' follow-through.
 */
export function computeForecast(events: readonly Event[], asOf: Date, opts: ForecastOptions = {}) {
  const asOfMs = asOf.getTime();
  const known = knownResets(events, asOfMs);
  const times = known.map(eventMs);
  const lastAt = known.length === 0 ? null : eventTime(known.at(-1)!).at;
  const announced = announcementEffect(events, asOfMs, opts.announced ?? null, opts.announcementReview ?? []);
  const forecast = (explanation: Detail, p: Probabilities) => ({
    ...p,
    covered_until: opts.coveredUntil ?? null,
    sample_size: times.length,
    model_version: MODEL_VERSION as string,
    explanation,
    last_global_reset_at: lastAt,
    window_days: HISTORY_WINDOW_DAYS,
    announced,
  });
  const withheld = whyWithheld(times, asOfMs, lastAt, opts);
  if (withheld !== null) return forecast(withheld, WITHHELD);

  const m24 = poissonProbability(times, asOfMs, 24 * HOUR_MS);
  // The chance grows with the horizon; max() guards against rounding at the clip.
  const m48 = Math.max(m24, poissonProbability(times, asOfMs, 48 * HOUR_MS));
  const raiseTo = announced === null ? 0 : clipProbability(announced.follow_through);
  const p24 = announced?.inside_24h ? Math.max(m24, raiseTo) : m24;
  const p48 = Math.max(p24, announced?.inside_48h ? Math.max(m48, raiseTo) : m48);
  const [base24, base48] = HORIZONS_HOURS.map((h) => baseRate(times, asOfMs, h)) as [number, number];
  const trailing = (days: number, h: number) => trailingClimatology(times, asOfMs, days, h * HOUR_MS);
  const common = {
    probability_24h: percent(p24),
    probability_48h: percent(p48),
    base_rate_24h: percent(base24),
    base_rate_48h: percent(base48),
    sample_size: times.length,
    days_since_last: oneDecimal((asOfMs - times.at(-1)!) / DAY_MS),
    window_days: HISTORY_WINDOW_DAYS,
  };
  const explanation =
    announced !== null && (announced.inside_24h || announced.inside_48h)
      ? {
          code: 'probability_announced',
          params: {
            ...common,
            scheduled_for: announced.scheduled_for ?? '',
            follow_through: percent(announced.follow_through),
            announcements_followed: announced.followed,
            announcements_sample: announced.sample_size,
            model_probability_24h: percent(m24),
            model_probability_48h: percent(m48),
          },
        }
      : { code: 'probability_poisson', params: { ...common, trailing_days: POISSON_TRAILING_DAYS } };
  return forecast(explanation, {
    probability_24h: p24,
    probability_48h: p48,
    base_rate_24h: base24,
    base_rate_48h: base48,
    trailing_base_rate_24h: trailing(TRAILING_CLIMATOLOGY_DAYS[0], 24),
    trailing_base_rate_48h: trailing(TRAILING_CLIMATOLOGY_DAYS[0], 48),
    trailing_90d_base_rate_24h: trailing(COMPARED_WITH_DAYS, 24),
    trailing_90d_base_rate_48h: trailing(COMPARED_WITH_DAYS, 48),
  });
}
