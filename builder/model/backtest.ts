// Pure: walk-forward backtest of the forecast models on a fixed history, with a train/test split in time.
// Every forecast is issued at a checkpoint from the events known at that instant; nothing later is read.
import { eventMs } from './events.ts';
import {
  CHECKPOINT_INTERVAL_MS,
  HAZARD_V2_PARAMS,
  HORIZONS_HOURS,
  HOUR_MS,
  MODEL_VERSIONS,
  PRODUCTION_MODEL,
  checkpointAtOrAfter,
  computeForecast,
  modelProbability,
  resetsKnownAt,
  toIso,
  type KnownReset,
  type HazardParams,
  type HorizonHours,
  type ModelVersion,
} from './forecast.ts';
import type { Event } from './schemas.ts';

/**
 * Hyperparameters are tuned only on forecasts whose outcome was known before this instant and scored on
 * checkpoints at or after it. Chosen before any test score was computed: roughly the first 60% of the
 * checkpoints that have a forecast (2026-03-11 onwards) train, the last 40% (July to mid-September 2026) test.
 */
export const BACKTEST_CUTOFF = '2026-07-01T00:00:00Z';

/** Reliability bins: ten equal-width probability bins. */
export const RELIABILITY_BINS = 10;

/** The train grid; Infinity means no recency decay, a single bin edge [0] means no time-since-last effect. */
export const HAZARD_GRID = {
  half_life_days: [7, 14, 30, 60, 90, 180, Infinity],
  prior_days: [1, 3, 7, 14, 30],
  bin_edges_days: [[0], [0, 2, 7], [0, 1, 3, 7, 14], [0, 1, 2, 4, 7, 14, 30]],
  incident_window_days: [0, 2, 7],
} as const satisfies { [K in keyof HazardParams]: readonly HazardParams[K][] };

export interface BacktestOptions {
  /** First checkpoint considered (default: the earliest event). Checkpoints below the minimum sample are skipped. */
  from?: Date;
  /** Coverage end: a forecast is scored only if its whole horizon ends by then (default: the latest event of any type). */
  to?: Date;
  cutoff?: Date;
  /** Skip the hyperparameter search (tests that only need scores run faster). */
  tune?: boolean;
}

export interface ReliabilityBin {
  lower: number;
  upper: number;
  count: number;
  mean_predicted: number | null;
  observed_frequency: number | null;
}

export interface Score {
  forecasts: number;
  brier: number | null;
  climatology_brier: number | null;
  /** Brier skill score against climatology: 1 - brier / climatology_brier; positive beats the base rate. */
  skill: number | null;
  /** climatology_brier - brier; positive means the model is better. */
  improvement: number | null;
  /**
   * Standard error of `improvement` from non-overlapping blocks one horizon long: forecasts issued 6 hours
   * apart share most of their window, so they are far from independent and a naive SE would be too small.
   */
  improvement_se: number | null;
  base_rate_mean: number | null;
  observed_frequency: number | null;
  reliability: ReliabilityBin[];
}

export type HorizonScores = Record<'h24' | 'h48', Score>;

export interface ModelBacktest {
  model_version: ModelVersion;
  production: boolean;
  params: HazardParams | null;
  train: HorizonScores;
  test: HorizonScores;
}

export interface TuningRow {
  params: HazardParams;
  train_brier_24h: number;
  train_brier_48h: number;
  objective: number;
}

export interface BacktestResult {
  from: string;
  to: string;
  split: {
    cutoff: string;
    rule: string;
    train: { first_checkpoint: string | null; last_checkpoint: string | null; forecasts_24h: number; forecasts_48h: number };
    test: { first_checkpoint: string | null; last_checkpoint: string | null; forecasts_24h: number; forecasts_48h: number };
  };
  checkpoints: { considered: number; skipped_insufficient_data: number; straddling_cutoff_24h: number; straddling_cutoff_48h: number };
  models: ModelBacktest[];
  /** Null when tuning was skipped. `best` is the train argmin; `matches_production` says whether forecast.ts ships it. */
  tuning: { objective: string; grid_size: number; best: TuningRow; top: TuningRow[]; matches_production: boolean } | null;
}

interface Checkpoint {
  at: number;
  resets: KnownReset[];
  split: 'train' | 'test' | 'straddle';
  outcome: boolean;
  base_rate: number;
}

type Plan = Record<HorizonHours, Checkpoint[]>;

const hKey = (h: HorizonHours) => (h === 24 ? 'h24' : 'h48') as 'h24' | 'h48';

export function brier(p: number, outcome: boolean): number {
  const o = outcome ? 1 : 0;
  return (p - o) ** 2;
}

function mean(xs: readonly number[]): number | null {
  return xs.length === 0 ? null : xs.reduce((s, x) => s + x, 0) / xs.length;
}

export function computeReliability(pairs: readonly { p: number; outcome: boolean }[], bins = RELIABILITY_BINS): ReliabilityBin[] {
  const acc = Array.from({ length: bins }, () => ({ n: 0, p: 0, o: 0 }));
  for (const { p, outcome } of pairs) {
    const b = acc[Math.min(bins - 1, Math.floor(p * bins))]!;
    b.n++;
    b.p += p;
    b.o += outcome ? 1 : 0;
  }
  return acc.map((b, i) => ({
    lower: i / bins,
    upper: (i + 1) / bins,
    count: b.n,
    mean_predicted: b.n === 0 ? null : b.p / b.n,
    observed_frequency: b.n === 0 ? null : b.o / b.n,
  }));
}

export interface ScoredForecast {
  at: number;
  p: number;
  base_rate: number;
  outcome: boolean;
}

function blockStandardError(rows: readonly ScoredForecast[], blockMs: number): number | null {
  const blocks = new Map<number, number[]>();
  for (const r of rows) {
    const key = Math.floor(r.at / blockMs);
    blocks.set(key, [...(blocks.get(key) ?? []), brier(r.base_rate, r.outcome) - brier(r.p, r.outcome)]);
  }
  const means = [...blocks.values()].map((xs) => mean(xs)!);
  if (means.length < 2) return null;
  const m = mean(means)!;
  const variance = means.reduce((s, x) => s + (x - m) ** 2, 0) / (means.length - 1);
  return Math.sqrt(variance / means.length);
}

export function computeScore(rows: readonly ScoredForecast[], horizonHours: number): Score {
  const b = mean(rows.map((r) => brier(r.p, r.outcome)));
  const c = mean(rows.map((r) => brier(r.base_rate, r.outcome)));
  return {
    forecasts: rows.length,
    brier: b,
    climatology_brier: c,
    skill: b === null || c === null || c === 0 ? null : 1 - b / c,
    improvement: b === null || c === null ? null : c - b,
    improvement_se: blockStandardError(rows, horizonHours * HOUR_MS),
    base_rate_mean: mean(rows.map((r) => r.base_rate)),
    observed_frequency: mean(rows.map((r) => (r.outcome ? 1 : 0))),
    reliability: computeReliability(rows.map((r) => ({ p: r.p, outcome: r.outcome }))),
  };
}

function planCheckpoints(events: readonly Event[], fromMs: number, toMs: number, cutoffMs: number): { plan: Plan; considered: number; skipped: number } {
  const resets = events
    .filter((e) => e.type === 'global_reset')
    .map(eventMs)
    .sort((a, b) => a - b);
  const plan: Plan = { 24: [], 48: [] };
  let considered = 0;
  let skipped = 0;
  for (let at = checkpointAtOrAfter(fromMs); at + 24 * HOUR_MS <= toMs; at += CHECKPOINT_INTERVAL_MS) {
    considered++;
    const f = computeForecast(events, new Date(at));
    if (f.base_rate_24h === null || f.base_rate_48h === null) {
      skipped++;
      continue;
    }
    const known = resetsKnownAt(events, new Date(at));
    for (const h of HORIZONS_HOURS) {
      const end = at + h * HOUR_MS;
      if (end > toMs) continue;
      const outcome = resets.some((t) => t > at && t <= end);
      const split = end <= cutoffMs ? 'train' : at >= cutoffMs ? 'test' : 'straddle';
      plan[h].push({ at, resets: known, split, outcome, base_rate: h === 24 ? f.base_rate_24h : f.base_rate_48h });
    }
  }
  return { plan, considered, skipped };
}

function scoreModel(plan: Plan, model: ModelVersion, params: HazardParams, split: 'train' | 'test'): HorizonScores {
  const out = {} as HorizonScores;
  for (const h of HORIZONS_HOURS) {
    const rows = plan[h].filter((c) => c.split === split).map((c) => ({ at: c.at, p: modelProbability(model, c.resets, c.at, h * HOUR_MS, params), base_rate: c.base_rate, outcome: c.outcome }));
    out[hKey(h)] = computeScore(rows, h);
  }
  return out;
}

function* grid(): Generator<HazardParams> {
  for (const incident_window_days of HAZARD_GRID.incident_window_days)
    for (const bin_edges_days of HAZARD_GRID.bin_edges_days)
      for (const half_life_days of HAZARD_GRID.half_life_days)
        for (const prior_days of HAZARD_GRID.prior_days) yield { half_life_days, prior_days, bin_edges_days, incident_window_days };
}

const sameParams = (a: HazardParams, b: HazardParams) =>
  a.half_life_days === b.half_life_days && a.incident_window_days === b.incident_window_days && a.prior_days === b.prior_days && a.bin_edges_days.join(',') === b.bin_edges_days.join(',');

/** Grid search on the train split only: minimises the mean of the 24h and 48h train Brier scores; ties keep grid order. */
export function tuneHazard(plan: Plan): TuningRow[] {
  const rows: TuningRow[] = [];
  for (const params of grid()) {
    const s = scoreModel(plan, 'hazard-v2', params, 'train');
    const b24 = s.h24.brier;
    const b48 = s.h48.brier;
    if (b24 === null || b48 === null) continue;
    rows.push({ params, train_brier_24h: b24, train_brier_48h: b48, objective: (b24 + b48) / 2 });
  }
  // Stable sort: equal objectives keep grid order, so the result never depends on anything but the data.
  return rows.sort((a, b) => a.objective - b.objective);
}

export function computeBacktest(events: readonly Event[], opts: BacktestOptions = {}): BacktestResult {
  const times = events.map(eventMs).filter(Number.isFinite);
  if (times.length === 0) throw new Error('[model/backtest] no events to backtest on');
  const fromMs = opts.from?.getTime() ?? Math.min(...times);
  const toMs = opts.to?.getTime() ?? Math.max(...times);
  const cutoffMs = (opts.cutoff ?? new Date(BACKTEST_CUTOFF)).getTime();
  const { plan, considered, skipped } = planCheckpoints(events, fromMs, toMs, cutoffMs);

  const side = (split: 'train' | 'test') => {
    const cps = [...plan[24], ...plan[48]].filter((c) => c.split === split).map((c) => c.at);
    return {
      first_checkpoint: cps.length === 0 ? null : toIso(Math.min(...cps)),
      last_checkpoint: cps.length === 0 ? null : toIso(Math.max(...cps)),
      forecasts_24h: plan[24].filter((c) => c.split === split).length,
      forecasts_48h: plan[48].filter((c) => c.split === split).length,
    };
  };

  let tuning: BacktestResult['tuning'] = null;
  if (opts.tune !== false) {
    const rows = tuneHazard(plan);
    const best = rows[0];
    if (best !== undefined) {
      tuning = {
        objective: 'mean of train Brier (24h, 48h)',
        grid_size: rows.length,
        best,
        top: rows.slice(0, 5),
        matches_production: sameParams(best.params, HAZARD_V2_PARAMS),
      };
    }
  }

  const models: ModelBacktest[] = MODEL_VERSIONS.map((model) => {
    const params = model === 'hazard-v2' ? HAZARD_V2_PARAMS : null;
    const p = params ?? HAZARD_V2_PARAMS;
    return {
      model_version: model,
      production: model === PRODUCTION_MODEL,
      params,
      train: scoreModel(plan, model, p, 'train'),
      test: scoreModel(plan, model, p, 'test'),
    };
  });

  return {
    from: toIso(fromMs),
    to: toIso(toMs),
    split: {
      cutoff: toIso(cutoffMs),
      rule: 'train: checkpoints whose horizon ends at or before the cutoff (hyperparameters tuned here); test: checkpoints at or after the cutoff (scored only); forecasts straddling the cutoff are in neither',
      train: side('train'),
      test: side('test'),
    },
    checkpoints: {
      considered,
      skipped_insufficient_data: skipped,
      straddling_cutoff_24h: plan[24].filter((c) => c.split === 'straddle').length,
      straddling_cutoff_48h: plan[48].filter((c) => c.split === 'straddle').length,
    },
    models,
    tuning,
  };
}
