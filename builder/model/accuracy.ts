// Pure: ResetBench, the public benchmark 24h/48h reset forecasts are scored on (research/backtest.ts scores by the same
// functions), and what /api/accuracy publishes by its rules: the append-only forecast log (the forecast live at each
// checkpoint, as issued), its one-time resolutions and visible corrections, and the scores.
import {
  CHECKPOINT_INTERVAL_MS,
  HORIZONS_HOURS,
  HOUR_MS,
  TRAILING_CLIMATOLOGY_DAYS,
  checkpointAtOrAfter,
  checkpointAtOrBefore,
  toIso,
  type HorizonHours,
} from './climatology.ts';
import { DAY_MS, eventMs } from './events.ts';
import type { Forecast } from './forecast.ts';
import { windowObserved, type CoverageSpan } from './coverage.ts';
import {
  IssuedForecastSchema,
  type Detail,
  type Event,
  type ForecastLogEntry,
  type ForecastResolution,
  type State,
} from './schemas.ts';
import { countsForForecast } from './agreement.ts';

export const RESETBENCH_RULES =
  'ResetBench rules: checkpoints 00/06/12/18 UTC; the last forecast issued at or before the checkpoint and at most 6 h old; outcome = a global reset in (t, t+h]; a checkpoint resolves only after its window closed';
const MAX_FORECAST_AGE_MS = 6 * HOUR_MS;

/** The forecast scored at checkpoint `t`: the last issued at or before t (the first of equals), if at most 6 h old. */
export function forecastAtCheckpoint<T extends { issued_ms: number }>(forecasts: readonly T[], t: number): T | null {
  let live: T | null = null;
  for (const f of forecasts) if (f.issued_ms <= t && (live === null || f.issued_ms > live.issued_ms)) live = f;
  return live !== null && t - live.issued_ms <= MAX_FORECAST_AGE_MS ? live : null;
}

/** Null while the window (t, t + h] is still open at `nowMs`; else the resets (by id) that fell in it. */
export function resolveCheckpoint(
  resets: readonly { ms: number; id: string }[],
  t: number,
  horizonHours: number,
  nowMs: number,
): { outcome: boolean; event_ids: string[] } | null {
  const end = t + horizonHours * HOUR_MS;
  if (end > nowMs) return null;
  const ids = resets.filter((r) => r.ms > t && r.ms <= end).map((r) => r.id);
  return { outcome: ids.length > 0, event_ids: ids.sort() };
}

export const brier = (p: number, outcome: boolean): number => (p - (outcome ? 1 : 0)) ** 2;

const sum = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0);
const mean = (xs: readonly number[]) => (xs.length === 0 ? null : sum(xs) / xs.length);

/** Forecast probability in ten equal-width bins against how often the outcome happened, with counts. */
export function reliabilityTable(pairs: readonly { p: number; outcome: boolean }[]) {
  const bins = 10;
  return Array.from({ length: bins }, (_, i) => {
    const inBin = pairs.filter(({ p }) => Math.min(bins - 1, Math.floor(p * bins)) === i);
    return {
      lower: i / bins,
      upper: (i + 1) / bins,
      count: inBin.length,
      mean_probability: mean(inBin.map((x) => x.p)),
      observed_frequency: mean(inBin.map((x) => (x.outcome ? 1 : 0))),
    };
  });
}

/** mulberry32: a tiny seeded PRNG, so the bootstrap gives the same interval on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Brier skill score 1 - sum(model Brier) / sum(baseline Brier) over rows in time order, with a 95% moving-block
 * bootstrap interval: blocks of consecutive rows, as overlapping windows and bursts make neighbours dependent.
 */
export function skillWithInterval(
  rows: readonly { p: number; base: number; outcome: boolean }[],
  opts: { blockLength: number; iterations: number; seed: number },
) {
  const n = rows.length;
  const bm = rows.map((r) => brier(r.p, r.outcome));
  const bb = rows.map((r) => brier(r.base, r.outcome));
  const ratio = (m: number, b: number) => (b === 0 ? null : 1 - m / b);
  // No rows: both sums are 0, so no skill.
  const skill = ratio(sum(bm), sum(bb));
  if (skill === null) return { skill, lower: null, upper: null };
  const L = Math.max(1, Math.min(opts.blockLength, n));
  const random = seededRandom(opts.seed);
  const draws: number[] = [];
  for (let it = 0; it < opts.iterations; it++) {
    let m = 0;
    let b = 0;
    for (let taken = 0; taken < n;) {
      const start = Math.floor(random() * (n - L + 1));
      for (let k = 0; k < L && taken < n; k++, taken++) {
        m += bm[start + k]!;
        b += bb[start + k]!;
      }
    }
    const s = ratio(m, b);
    if (s !== null) draws.push(s);
  }
  draws.sort((x, y) => x - y);
  const q = (f: number) => draws[Math.min(draws.length - 1, Math.max(0, Math.round(f * (draws.length - 1))))] ?? null;
  return { skill, lower: q(0.025), upper: q(0.975) };
}

/** Accuracy is published for the last 30 days: long enough for ~120 checkpoints a horizon, short enough to show drift. */
export const ACCURACY_WINDOW_DAYS = 30;
/** The log keeps four times the accuracy window. */
export const FORECAST_LOG_RETENTION_DAYS = 120;
/** Resolving only this long after a window closed: sources report a reset late, and most would become corrections. */
export const RESOLVE_AFTER_MS = 6 * HOUR_MS;
/** A window unobserved this long after it closed is `unresolvable` (a week covers an outage and an archive update). */
export const UNRESOLVABLE_AFTER_MS = 7 * DAY_MS;
/** The builder runs every 15 minutes; a live forecast older than this at its checkpoint means runs were dropped. */
const LATE_AFTER_MS = HOUR_MS;

export type ForecastRecord = Pick<State, 'forecast_log' | 'forecast_resolutions' | 'last_forecast'>;

/**
 * Appends an entry for every checkpoint passed since the last logged one, resolves each window once, and appends a
 * correction when the records now say otherwise: only entries past the retention ever leave the log.
 */
export function recordForecast(
  prev: ForecastRecord,
  forecast: Forecast,
  events: readonly Event[],
  asOf: Date,
  coverage?: readonly CoverageSpan[],
): ForecastRecord {
  const asOfMs = asOf.getTime();
  const current = IssuedForecastSchema.parse({ ...forecast, issued_at: toIso(asOfMs) });
  const keepFrom = asOfMs - FORECAST_LOG_RETENTION_DAYS * DAY_MS;
  const log = prev.forecast_log.filter((e) => Date.parse(e.checkpoint) >= keepFrom);
  const lastLogged = Math.max(-Infinity, ...log.map((e) => Date.parse(e.checkpoint)));
  // A fresh log starts at the checkpoint the previous run's forecast covers; it does not invent missed history.
  const first = Number.isFinite(lastLogged)
    ? lastLogged + CHECKPOINT_INTERVAL_MS
    : checkpointAtOrAfter(prev.last_forecast !== null ? Date.parse(prev.last_forecast.issued_at) : asOfMs);
  const candidates = [prev.last_forecast, current].flatMap((f) => (f ? { issued_ms: Date.parse(f.issued_at), f } : []));
  for (let t = Math.max(first, checkpointAtOrAfter(keepFrom)); t <= asOfMs; t += CHECKPOINT_INTERVAL_MS) {
    // The forecast live at t by ResetBench's rule, if it has probabilities.
    const live = forecastAtCheckpoint(candidates, t)?.f;
    const usable = live !== undefined && live.probability_24h !== null && live.probability_48h !== null;
    const status = usable ? 'issued' : 'missed';
    log.push({ checkpoint: toIso(t), status, logged_at: toIso(asOfMs), forecast: usable ? live : null });
  }
  // Resolves each window once, and only windows the reset sources observed (`coverage` undefined: all of them).
  const resolutions = prev.forecast_resolutions.filter((r) => Date.parse(r.checkpoint) >= keepFrom);
  const resets = events
    .filter((e) => countsForForecast(e) && eventMs(e) <= asOfMs)
    .map((e) => ({ ms: eventMs(e), id: e.id }));
  const windowStart = asOfMs - ACCURACY_WINDOW_DAYS * DAY_MS - 48 * HOUR_MS;
  for (const entry of log) {
    const t = Date.parse(entry.checkpoint);
    if (entry.status !== 'issued' || t < windowStart) continue;
    for (const h of HORIZONS_HOURS) {
      const res = resolveCheckpoint(resets, t, h, asOfMs - RESOLVE_AFTER_MS);
      if (res === null) continue;
      // The outcome now in force for the window: its latest resolution or correction.
      const previous = resolutions.findLast((r) => r.checkpoint === entry.checkpoint && r.horizon_hours === h);
      const end = t + h * HOUR_MS;
      const unobserved =
        coverage !== undefined && (!windowObserved(coverage, t, end) || asOfMs - end > UNRESOLVABLE_AFTER_MS);
      if (previous === undefined ? unobserved : previous.outcome === res.outcome) continue;
      resolutions.push({
        checkpoint: entry.checkpoint,
        horizon_hours: h,
        kind: previous === undefined ? 'resolution' : 'correction',
        outcome: res.outcome,
        resolved_at: toIso(asOfMs),
        event_ids: res.event_ids,
      });
    }
  }
  return { forecast_log: log, forecast_resolutions: resolutions, last_forecast: current };
}

/** The skill baselines /api/accuracy reports, each the field of the base rate logged with the forecast. */
const BASELINE_FIELDS = {
  all_history: 'base_rate',
  trailing_30d: 'trailing_base_rate',
  trailing_90d: 'trailing_90d_base_rate',
} as const;
type SkillBaseline = keyof typeof BASELINE_FIELDS;
/** Earlier logged models that are themselves a baseline: skill 0 by construction, so left out of that comparison. */
const MODEL_BASELINES: Readonly<Record<string, SkillBaseline>> = {
  'climatology-30d': 'trailing_30d',
  'climatology-90d': 'trailing_90d',
};

/** Below a week of checkpoints (one bootstrap block) an interval says nothing: skill is null with the reason. */
const MIN_SKILL_SAMPLE = 28;
/** As research/backtest.ts BOOTSTRAP: blocks of 7 days of checkpoints, seeded. */
const SKILL_BOOTSTRAP = { blockLength: 28, iterations: 2000, seed: 16 } as const;

/** Skill against one baseline at one horizon (rows in log order); null with a forecast:skill.* reason when n is small. */
function skillOf(inForce: ReturnType<typeof scoreEntries>['rows'], h: HorizonHours, baseline: SkillBaseline) {
  const withBase = inForce.filter((r) => r.h === h && r.bases[baseline] !== null);
  const same = withBase.filter((r) => MODEL_BASELINES[r.model] === baseline);
  const rows = withBase
    .filter((r) => MODEL_BASELINES[r.model] !== baseline)
    .map((r) => ({ p: r.p, base: r.bases[baseline]!, outcome: r.outcome }));
  const n = rows.length;
  if (n < MIN_SKILL_SAMPLE) {
    const last = same.at(-1);
    const params = { n, min: MIN_SKILL_SAMPLE };
    const reason: Detail =
      last === undefined
        ? { code: 'skill.too_few', params }
        : { code: 'skill.same_as_model', params: { ...params, model_version: last.model, left_out: same.length } };
    return { skill: null, lower: null, upper: null, n, reason };
  }
  const s = skillWithInterval(rows, SKILL_BOOTSTRAP);
  return { ...s, n, reason: s.skill === null ? { code: 'skill.perfect_baseline', params: {} } : null };
}

/** Each issued checkpoint at each horizon: scored (first resolution and any correction), pending or unresolvable. */
function scoreEntries(
  entries: readonly ForecastLogEntry[],
  resolutions: readonly ForecastResolution[],
  asOfMs: number,
) {
  const forecasts = [];
  const rows = [];
  const pending: Record<HorizonHours, number> = { 24: 0, 48: 0 };
  const unresolvable: Record<HorizonHours, number> = { 24: 0, 48: 0 };
  for (const { checkpoint, forecast: f } of entries) {
    if (f === null) continue;
    const t = Date.parse(checkpoint);
    for (const h of HORIZONS_HOURS) {
      const p = f[`probability_${h}h`];
      if (p === null) continue;
      const ofWindow = resolutions.filter((r) => r.checkpoint === checkpoint && r.horizon_hours === h);
      const first = ofWindow.find((r) => r.kind === 'resolution');
      if (first === undefined) {
        if (asOfMs - (t + h * HOUR_MS) > UNRESOLVABLE_AFTER_MS) unresolvable[h]++;
        else pending[h]++;
        continue;
      }
      const latest = ofWindow.at(-1)!;
      const age = t - Date.parse(f.issued_at);
      forecasts.push({
        checkpoint,
        horizon_hours: h,
        issued_at: f.issued_at,
        age_minutes: Math.round(age / 60_000),
        late: age > LATE_AFTER_MS,
        model_version: f.model_version,
        probability: p,
        outcome: first.outcome,
        resolved_at: first.resolved_at,
        event_ids: first.event_ids,
        brier: brier(p, first.outcome),
        correction:
          latest === first
            ? null
            : {
                outcome: latest.outcome,
                corrected_at: latest.resolved_at,
                event_ids: latest.event_ids,
                brier: brier(p, latest.outcome),
              },
      });
      const bases = Object.fromEntries(
        Object.entries(BASELINE_FIELDS).map(([b, field]) => [b, f[`${field}_${h}h`]]),
      ) as Record<SkillBaseline, number | null>;
      rows.push({ h, p, outcome: latest.outcome, model: f.model_version, bases });
    }
  }
  forecasts.sort((a, b) => Date.parse(b.checkpoint) - Date.parse(a.checkpoint) || a.horizon_hours - b.horizon_hours);
  return { forecasts, rows, pending, unresolvable };
}

/** What /api/accuracy publishes (render/schemas.ts AccuracyDocSchema describes each field). */
export type Accuracy = ReturnType<typeof computeAccuracy>;
export type HorizonSummary = Accuracy['summary']['h24'];

/** Scores the frozen log: checkpoints of the last 30 days, each with its as-issued forecast and its recorded outcome. */
export function computeAccuracy(
  log: readonly ForecastLogEntry[],
  resolutions: readonly ForecastResolution[],
  asOf: Date,
) {
  const asOfMs = asOf.getTime();
  const windowStart = checkpointAtOrBefore(asOfMs - ACCURACY_WINDOW_DAYS * DAY_MS);
  const entries = log.filter((e) => Date.parse(e.checkpoint) >= windowStart && Date.parse(e.checkpoint) <= asOfMs);
  const issued = entries.filter((e) => e.status === 'issued');
  const { forecasts, rows, pending, unresolvable } = scoreEntries(issued, resolutions, asOfMs);
  const rowsAt = (h: HorizonHours) => rows.filter((r) => r.h === h);
  const summarise = (h: HorizonHours) => {
    const withBase = rowsAt(h).filter((r) => r.bases.all_history !== null);
    const withTrailing = rowsAt(h).filter((r) => r.bases.trailing_30d !== null);
    return {
      brier: mean(rowsAt(h).map((r) => brier(r.p, r.outcome))),
      climatology_brier: mean(withBase.map((r) => brier(r.bases.all_history!, r.outcome))),
      trailing_climatology_brier: mean(withTrailing.map((r) => brier(r.bases.trailing_30d!, r.outcome))),
      trailing_sample_size: withTrailing.length,
      sample_size: rowsAt(h).length,
      late: forecasts.filter((f) => f.horizon_hours === h && f.late).length,
      pending: pending[h],
      corrections: forecasts.filter((f) => f.horizon_hours === h && f.correction !== null).length,
    };
  };
  const missed = entries.flatMap((e) => (e.status === 'missed' ? [{ checkpoint: e.checkpoint }] : [])).reverse();
  // forecasts is sorted newest first.
  const newestModel = forecasts[0]?.model_version ?? null;
  // Time order matters for the block bootstrap: rows follow the log, oldest first.
  const skill = Object.fromEntries(
    Object.keys(BASELINE_FIELDS).flatMap((b) =>
      HORIZONS_HOURS.map((h) => [`${b}_${h}h`, skillOf(rows, h, b as SkillBaseline)]),
    ),
  ) as Record<`${SkillBaseline}_${'24h' | '48h'}`, ReturnType<typeof skillOf>>;
  return {
    window_days: ACCURACY_WINDOW_DAYS,
    counts: {
      resolved_24h: rowsAt(24).length,
      resolved_48h: rowsAt(48).length,
      pending_24h: pending[24],
      pending_48h: pending[48],
      unresolvable_24h: unresolvable[24],
      unresolvable_48h: unresolvable[48],
      missed: missed.length,
    },
    skill,
    scoring: {
      rules: RESETBENCH_RULES,
      late_after_minutes: LATE_AFTER_MS / 60_000,
      resolve_after_hours: RESOLVE_AFTER_MS / HOUR_MS,
      trailing_climatology_days: TRAILING_CLIMATOLOGY_DAYS[0],
      model_version: newestModel,
      model_baseline: newestModel === null ? null : (MODEL_BASELINES[newestModel] ?? null),
    },
    forecasts,
    missed,
    summary: { h24: summarise(24), h48: summarise(48) },
    reliability: { h24: reliabilityTable(rowsAt(24)), h48: reliabilityTable(rowsAt(48)) },
  };
}
