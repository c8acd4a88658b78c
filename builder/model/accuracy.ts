// Pure: the append-only forecast log (the forecast live at each 00/06/12/18 UTC checkpoint, as issued), its
// one-time resolutions and visible corrections, and the published accuracy, all by ResetBench's rules.
import {
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
  MAX_FORECAST_AGE_MS,
  RESETBENCH_RULES,
  brier,
  reliabilityTable,
  resolveCheckpoint,
  skillWithInterval,
  type ReliabilityBin,
} from './resetbench.ts';
import type { Detail, Event, ForecastLogEntry, ForecastResolution, IssuedForecast } from './schemas.ts';
import { countsAsGlobal } from './reach.ts';

/** Accuracy is published for the last 30 days: long enough for ~120 checkpoints a horizon, short enough to show drift. */
export const ACCURACY_WINDOW_DAYS = 30;
/** The log keeps four times the accuracy window. */
export const FORECAST_LOG_RETENTION_DAYS = 120;
/**
 * A window is resolved this long after it closed, not at once: the tracker and the archive report a reset some
 * minutes to hours after it lands, and resolving early would turn most late reports into corrections.
 */
export const RESOLVE_AFTER_MS = 6 * HOUR_MS;
/**
 * A window still unobserved this long after it closed is given up as `unresolvable`: excluded from every score,
 * counted in the summary. A week covers a long source outage and a reviewed archive update in git.
 */
export const UNRESOLVABLE_AFTER_MS = 7 * DAY_MS;
/** The builder runs every 15 minutes; a live forecast older than this at its checkpoint means runs were dropped. */
export const LATE_AFTER_MS = HOUR_MS;

export interface ForecastRecord {
  forecast_log: ForecastLogEntry[];
  forecast_resolutions: ForecastResolution[];
  last_forecast: IssuedForecast | null;
}

/** The forecast this run publishes, as the log keeps it. */
export function issuedForecast(f: Forecast, asOf: Date): IssuedForecast {
  return {
    issued_at: toIso(asOf.getTime()),
    model_version: f.model_version,
    probability_24h: f.probability_24h,
    probability_48h: f.probability_48h,
    base_rate_24h: f.base_rate_24h,
    base_rate_48h: f.base_rate_48h,
    trailing_base_rate_24h: f.trailing_base_rate_24h,
    trailing_base_rate_48h: f.trailing_base_rate_48h,
    trailing_90d_base_rate_24h: f.trailing_90d_base_rate_24h,
    trailing_90d_base_rate_48h: f.trailing_90d_base_rate_48h,
    sample_size: f.sample_size,
  };
}

/** The log entry for checkpoint t: the latest forecast issued at or before t, if it is at most 6 h old and has probabilities. */
function entryFor(t: number, candidates: readonly IssuedForecast[], asOf: Date): ForecastLogEntry {
  const live = candidates
    .filter((f) => Date.parse(f.issued_at) <= t)
    .sort((a, b) => Date.parse(b.issued_at) - Date.parse(a.issued_at))[0];
  const usable =
    live !== undefined &&
    t - Date.parse(live.issued_at) <= MAX_FORECAST_AGE_MS &&
    live.probability_24h !== null &&
    live.probability_48h !== null;
  return {
    checkpoint: toIso(t),
    status: usable ? 'issued' : 'missed',
    logged_at: toIso(asOf.getTime()),
    forecast: usable ? live : null,
  };
}

/**
 * Appends an entry for every checkpoint passed since the last logged one (a missed one as `missed`), resolves each
 * window once, RESOLVE_AFTER_MS after it closed, and appends a correction when the records now say otherwise.
 * Nothing already in the log or the resolutions is ever changed; entries past the retention are dropped.
 */
export function recordForecast(
  prev: ForecastRecord,
  forecast: Forecast,
  events: readonly Event[],
  asOf: Date,
  coverage?: readonly CoverageSpan[],
): ForecastRecord {
  const asOfMs = asOf.getTime();
  const current = issuedForecast(forecast, asOf);
  const keepFrom = asOfMs - FORECAST_LOG_RETENTION_DAYS * DAY_MS;
  const log = prev.forecast_log.filter((e) => Date.parse(e.checkpoint) >= keepFrom);
  const lastLogged = Math.max(-Infinity, ...log.map((e) => Date.parse(e.checkpoint)));
  // A fresh log starts at the checkpoint the previous run's forecast covers; it does not invent missed history.
  const first = Number.isFinite(lastLogged)
    ? lastLogged + 6 * HOUR_MS
    : prev.last_forecast !== null
      ? checkpointAtOrAfter(Date.parse(prev.last_forecast.issued_at))
      : checkpointAtOrAfter(asOfMs);
  const candidates = prev.last_forecast === null ? [current] : [prev.last_forecast, current];
  for (let t = Math.max(first, checkpointAtOrAfter(keepFrom)); t <= asOfMs; t += 6 * HOUR_MS)
    log.push(entryFor(t, candidates, asOf));
  const resolutions = resolve(
    log,
    prev.forecast_resolutions.filter((r) => Date.parse(r.checkpoint) >= keepFrom),
    events,
    asOfMs,
    coverage,
  );
  return { forecast_log: log, forecast_resolutions: resolutions, last_forecast: current };
}

/** The outcome now in force for a checkpoint and horizon: its latest resolution or correction. */
function inForce(
  resolutions: readonly ForecastResolution[],
  checkpoint: string,
  h: HorizonHours,
): ForecastResolution | undefined {
  let found: ForecastResolution | undefined;
  for (const r of resolutions) if (r.checkpoint === checkpoint && r.horizon_hours === h) found = r;
  return found;
}

/**
 * Resolves only what was observed: a window resolves when the reset sources covered it (coverage.ts
 * `windowObserved`: good checks no more than 2 h apart from its start to its end, or a reviewed archive's span);
 * otherwise it stays pending, and UNRESOLVABLE_AFTER_MS after it closed it is given up. `coverage` undefined: the
 * caller vouches that everything was observed (tests of other rules); the run always passes it.
 */
function resolve(
  log: readonly ForecastLogEntry[],
  resolutions: ForecastResolution[],
  events: readonly Event[],
  asOfMs: number,
  coverage?: readonly CoverageSpan[],
): ForecastResolution[] {
  const resets = events
    .filter(countsAsGlobal)
    .map((e) => ({ ms: eventMs(e), id: e.id }))
    .filter((r) => r.ms <= asOfMs);
  const out = [...resolutions];
  const windowStart = asOfMs - ACCURACY_WINDOW_DAYS * DAY_MS - 48 * HOUR_MS;
  for (const entry of log) {
    const t = Date.parse(entry.checkpoint);
    if (entry.status !== 'issued' || t < windowStart) continue;
    for (const h of HORIZONS_HOURS) {
      const res = resolveCheckpoint(resets, t, h, asOfMs - RESOLVE_AFTER_MS);
      if (res === null) continue;
      const previous = inForce(out, entry.checkpoint, h);
      const end = t + h * HOUR_MS;
      if (
        previous === undefined &&
        coverage !== undefined &&
        (!windowObserved(coverage, t, end) || asOfMs - end > UNRESOLVABLE_AFTER_MS)
      )
        continue;
      if (previous !== undefined && previous.outcome === res.outcome) continue;
      out.push({
        checkpoint: entry.checkpoint,
        horizon_hours: h,
        kind: previous === undefined ? 'resolution' : 'correction',
        outcome: res.outcome,
        resolved_at: toIso(asOfMs),
        event_ids: res.event_ids,
      });
    }
  }
  return out;
}

export interface ScoredCheckpoint {
  checkpoint: string;
  horizon_hours: HorizonHours;
  issued_at: string;
  /** Age of the forecast at the checkpoint, in minutes. */
  age_minutes: number;
  late: boolean;
  model_version: string;
  probability: number;
  /** As first resolved: never edited. */
  outcome: boolean;
  resolved_at: string;
  event_ids: string[];
  brier: number;
  /** A later correction of the outcome, if any; the summary scores the corrected outcome. */
  correction: { outcome: boolean; corrected_at: string; event_ids: string[]; brier: number } | null;
}

export interface HorizonSummary {
  brier: number | null;
  climatology_brier: number | null;
  trailing_climatology_brier: number | null;
  /** Checkpoints with a trailing base rate (entries logged before it was recorded have none). */
  trailing_sample_size: number;
  sample_size: number;
  late: number;
  pending: number;
  corrections: number;
}

/** Skill against one baseline over the window's resolved, as-issued checkpoints; null with the reason when n is too small. */
export interface SkillEntry {
  skill: number | null;
  lower: number | null;
  upper: number | null;
  n: number;
  /** Why skill is null, as a message code the render translates (forecast:skill.*); null when skill is a number. */
  reason: Detail | null;
}

/** The skill baselines /api/accuracy reports (base rates logged with each forecast). */
export type SkillBaseline = 'all_history' | 'trailing_30d' | 'trailing_90d';
/**
 * A model that is itself one of the baselines: its skill against that baseline is 0 by construction, so its
 * checkpoints are left out of that comparison (and the document names the identity). The shipped model
 * (forecast.ts MODEL_VERSION) is none of them; earlier logged versions were.
 */
export const MODEL_BASELINES: Readonly<Record<string, SkillBaseline>> = {
  'climatology-30d': 'trailing_30d',
  'climatology-90d': 'trailing_90d',
};

/** Below a week of checkpoints (one bootstrap block) an interval says nothing: skill is null with the reason. */
export const MIN_SKILL_SAMPLE = 28;
/** The bootstrap of the backtest (research/backtest.ts BOOTSTRAP): blocks of 7 days of checkpoints, seeded. */
const SKILL_BOOTSTRAP = { blockLength: 28, iterations: 2000, seed: 16 } as const;

export interface Accuracy {
  window_days: number;
  /** Checkpoint-horizon counts in the window: resolved (scored), pending, unresolvable (never scored), missed checkpoints. */
  counts: {
    resolved_24h: number;
    resolved_48h: number;
    pending_24h: number;
    pending_48h: number;
    unresolvable_24h: number;
    unresolvable_48h: number;
    missed: number;
  };
  /** Skill 1 - Brier / baseline Brier with a 95% block-bootstrap interval, per baseline and horizon. */
  skill: Record<`${SkillBaseline}_${'24h' | '48h'}`, SkillEntry>;
  scoring: {
    rules: string;
    late_after_minutes: number;
    resolve_after_hours: number;
    trailing_climatology_days: number;
    /** The model of the newest scored forecast in the window, and the baseline it is itself (null when none). */
    model_version: string | null;
    model_baseline: SkillBaseline | null;
  };
  forecasts: ScoredCheckpoint[];
  missed: { checkpoint: string }[];
  summary: { h24: HorizonSummary; h48: HorizonSummary };
  reliability: { h24: ReliabilityBin[]; h48: ReliabilityBin[] };
}

const mean = (xs: readonly number[]) => (xs.length === 0 ? null : xs.reduce((s, x) => s + x, 0) / xs.length);

/** One scored forecast with the outcome in force and the baselines it was issued with. */
interface InForceRow {
  h: HorizonHours;
  p: number;
  outcome: boolean;
  /** The model that issued the forecast: a forecast whose model is a baseline is left out of that baseline's skill. */
  model: string;
  base: number | null;
  trailing: number | null;
  trailing90: number | null;
}

/**
 * Skill against one baseline at one horizon, over the rows that have it (in log order, for the block bootstrap). A
 * forecast whose model is this baseline is left out of it: its skill there is 0 by construction, not evidence.
 */
function skillOf(
  inForce: readonly InForceRow[],
  h: HorizonHours,
  baseline: SkillBaseline,
  pick: (r: InForceRow) => number | null,
): SkillEntry {
  const withBase = inForce.filter((r) => r.h === h && pick(r) !== null);
  const same = withBase.filter((r) => MODEL_BASELINES[r.model] === baseline);
  const rows = withBase
    .filter((r) => MODEL_BASELINES[r.model] !== baseline)
    .map((r) => ({ p: r.p, base: pick(r)!, outcome: r.outcome }));
  if (rows.length < MIN_SKILL_SAMPLE) {
    const reason =
      same.length > 0
        ? {
            code: 'skill.same_as_model',
            params: {
              n: rows.length,
              min: MIN_SKILL_SAMPLE,
              model_version: same[same.length - 1]!.model,
              left_out: same.length,
            },
          }
        : { code: 'skill.too_few', params: { n: rows.length, min: MIN_SKILL_SAMPLE } };
    return { skill: null, lower: null, upper: null, n: rows.length, reason };
  }
  const s = skillWithInterval(rows, SKILL_BOOTSTRAP);
  return { ...s, n: rows.length, reason: s.skill === null ? { code: 'skill.perfect_baseline', params: {} } : null };
}

function skillTable(inForce: readonly InForceRow[]) {
  return {
    all_history_24h: skillOf(inForce, 24, 'all_history', (r) => r.base),
    all_history_48h: skillOf(inForce, 48, 'all_history', (r) => r.base),
    trailing_30d_24h: skillOf(inForce, 24, 'trailing_30d', (r) => r.trailing),
    trailing_30d_48h: skillOf(inForce, 48, 'trailing_30d', (r) => r.trailing),
    trailing_90d_24h: skillOf(inForce, 24, 'trailing_90d', (r) => r.trailing90),
    trailing_90d_48h: skillOf(inForce, 48, 'trailing_90d', (r) => r.trailing90),
  };
}

/** Scores the frozen log: checkpoints of the last 30 days, each with its as-issued forecast and its recorded outcome. */
export function computeAccuracy(
  log: readonly ForecastLogEntry[],
  resolutions: readonly ForecastResolution[],
  asOf: Date,
): Accuracy {
  const asOfMs = asOf.getTime();
  const windowStart = checkpointAtOrBefore(asOfMs - ACCURACY_WINDOW_DAYS * DAY_MS);
  const entries = log.filter((e) => Date.parse(e.checkpoint) >= windowStart && Date.parse(e.checkpoint) <= asOfMs);
  const forecasts: ScoredCheckpoint[] = [];
  const inForceOutcome: InForceRow[] = [];
  const pending: Record<HorizonHours, number> = { 24: 0, 48: 0 };
  const unresolvable: Record<HorizonHours, number> = { 24: 0, 48: 0 };
  for (const e of entries) {
    if (e.status !== 'issued' || e.forecast === null) continue;
    const f = e.forecast;
    const t = Date.parse(e.checkpoint);
    for (const h of HORIZONS_HOURS) {
      const p = h === 24 ? f.probability_24h : f.probability_48h;
      const first = resolutions.find(
        (r) => r.checkpoint === e.checkpoint && r.horizon_hours === h && r.kind === 'resolution',
      );
      if (p === null) continue;
      if (first === undefined) {
        // Given up once the window closed more than UNRESOLVABLE_AFTER_MS ago unobserved (resolve() stops trying then).
        if (asOfMs - (t + h * HOUR_MS) > UNRESOLVABLE_AFTER_MS) unresolvable[h]++;
        else pending[h]++;
        continue;
      }
      const latest = inForce(resolutions, e.checkpoint, h)!;
      const age = t - Date.parse(f.issued_at);
      forecasts.push({
        checkpoint: e.checkpoint,
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
      inForceOutcome.push({
        h,
        p,
        outcome: latest.outcome,
        model: f.model_version,
        base: h === 24 ? f.base_rate_24h : f.base_rate_48h,
        trailing: h === 24 ? f.trailing_base_rate_24h : f.trailing_base_rate_48h,
        trailing90: h === 24 ? f.trailing_90d_base_rate_24h : f.trailing_90d_base_rate_48h,
      });
    }
  }
  forecasts.sort((a, b) => Date.parse(b.checkpoint) - Date.parse(a.checkpoint) || a.horizon_hours - b.horizon_hours);
  const summarise = (h: HorizonHours): HorizonSummary => {
    const rows = inForceOutcome.filter((r) => r.h === h);
    const withBase = rows.filter((r) => r.base !== null);
    const withTrailing = rows.filter((r) => r.trailing !== null);
    return {
      brier: mean(rows.map((r) => brier(r.p, r.outcome))),
      climatology_brier: mean(withBase.map((r) => brier(r.base!, r.outcome))),
      trailing_climatology_brier: mean(withTrailing.map((r) => brier(r.trailing!, r.outcome))),
      trailing_sample_size: withTrailing.length,
      sample_size: rows.length,
      late: forecasts.filter((f) => f.horizon_hours === h && f.late).length,
      pending: pending[h],
      corrections: forecasts.filter((f) => f.horizon_hours === h && f.correction !== null).length,
    };
  };
  // forecasts is sorted newest first.
  const newestModel = forecasts[0]?.model_version ?? null;
  const missed = entries
    .filter((e) => e.status === 'missed')
    .map((e) => ({ checkpoint: e.checkpoint }))
    .reverse();
  const resolvedCount = (h: HorizonHours) => inForceOutcome.filter((r) => r.h === h).length;
  const counts = {
    resolved_24h: resolvedCount(24),
    resolved_48h: resolvedCount(48),
    pending_24h: pending[24],
    pending_48h: pending[48],
    unresolvable_24h: unresolvable[24],
    unresolvable_48h: unresolvable[48],
    missed: missed.length,
  };
  const reliability = (h: HorizonHours) =>
    reliabilityTable(inForceOutcome.filter((r) => r.h === h).map((r) => ({ p: r.p, outcome: r.outcome })));
  return {
    window_days: ACCURACY_WINDOW_DAYS,
    counts,
    // Time order matters for the block bootstrap: inForceOutcome follows the log, oldest first.
    skill: skillTable(inForceOutcome),
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
    reliability: { h24: reliability(24), h48: reliability(48) },
  };
}
