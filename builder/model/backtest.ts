// Pure: walk-forward backtest of the forecast models on a fixed history, scored by ResetBench's rules, against
// the all-history climatology and trailing 30- and 90-day climatologies, with block-bootstrap intervals.
// Hyperparameters are chosen by rolling-origin evaluation: at each origin, only on checkpoints resolved before it.
import { HOUR_MS, HORIZONS_HOURS, TRAILING_CLIMATOLOGY_DAYS, checkpointAtOrAfter, toIso, trailingClimatology, type HorizonHours } from './climatology.ts';
import { eventMs } from './events.ts';
import { HAZARD_V3_PARAMS, computeForecast, modelProbability, resetsKnownAt, type HazardParams, type KnownReset } from './forecast.ts';
import { RESETBENCH_RULES, brier, reliabilityTable, resolveCheckpoint, skillWithInterval, type ReliabilityBin, type SkillInterval } from './resetbench.ts';
import type { Event } from './schemas.ts';

/** Rolling origins: the first of every month from here on (two months of forecasts before it to choose from). */
export const FIRST_ROLLING_ORIGIN = '2026-05-01T00:00:00Z';
/** The hyperparameter grid; Infinity means no recency decay, a single bin edge [0] no time-since-last effect. */
export const HAZARD_GRID = {
  half_life_days: [7, 14, 30, 60, 90, 180, Infinity],
  prior_days: [1, 3, 7, 14, 30],
  bin_edges_days: [[0], [0, 2, 7], [0, 1, 3, 7, 14], [0, 1, 2, 4, 7, 14, 30]],
} as const satisfies { [K in keyof HazardParams]: readonly HazardParams[K][] };
/** Seven days of checkpoints per bootstrap block: longer than a 48 h window's overlap and than most bursts. */
export const BOOTSTRAP = { blockLength: 28, iterations: 2000, seed: 16 } as const;

export const BASELINES = ['climatology_all', 'trailing_30d', 'trailing_90d'] as const;
export type Baseline = (typeof BASELINES)[number];

/** One checkpoint and horizon: what was known then, what happened, and every baseline's probability. */
export interface Row {
  at: number;
  h: HorizonHours;
  resets: KnownReset[];
  outcome: boolean;
  base: Record<Baseline, number>;
}

export interface Comparison extends SkillInterval {
  baseline: Baseline;
  baseline_brier: number | null;
}

export interface ScoreLine {
  name: string;
  horizon_hours: HorizonHours;
  forecasts: number;
  brier: number | null;
  observed_frequency: number | null;
  mean_probability: number | null;
  versus: Comparison[];
  reliability: ReliabilityBin[];
}

export interface OriginChoice {
  origin: string;
  params: HazardParams;
  /** Checkpoint rows (24h + 48h) resolved before the origin that the choice was made on. */
  rows: number;
}

export interface BacktestResult {
  rules: string;
  from: string;
  to: string;
  evaluation: { from: string; to: string; rule: string };
  checkpoints: { considered: number; skipped_insufficient_data: number };
  origins: OriginChoice[];
  /** The choice on all resolved history: what forecast.ts should ship. */
  selected: HazardParams;
  matches_production: boolean;
  lines: ScoreLine[];
}

const mean = (xs: readonly number[]) => (xs.length === 0 ? null : xs.reduce((s, x) => s + x, 0) / xs.length);

/** Every scorable checkpoint row, from the first with a forecast until the last window that closed by `toMs`. */
export function planRows(events: readonly Event[], fromMs: number, toMs: number): { rows: Row[]; considered: number; skipped: number } {
  const resets = events.filter((e) => e.type === 'global_reset').map((e) => ({ ms: eventMs(e), id: e.id })).sort((a, b) => a.ms - b.ms);
  const times = resets.map((r) => r.ms);
  const rows: Row[] = [];
  let considered = 0;
  let skipped = 0;
  for (let at = checkpointAtOrAfter(fromMs); at + 24 * HOUR_MS <= toMs; at += 6 * HOUR_MS) {
    considered++;
    const f = computeForecast(events, new Date(at));
    if (f.base_rate_24h === null || f.base_rate_48h === null) {
      skipped++;
      continue;
    }
    const known = resetsKnownAt(events, new Date(at));
    const knownTimes = times.filter((t) => t <= at);
    for (const h of HORIZONS_HOURS) {
      const resolved = resolveCheckpoint(resets, at, h, toMs);
      if (resolved === null) continue;
      const t30 = trailingClimatology(knownTimes, at, TRAILING_CLIMATOLOGY_DAYS[0], h * HOUR_MS);
      const t90 = trailingClimatology(knownTimes, at, TRAILING_CLIMATOLOGY_DAYS[1], h * HOUR_MS);
      if (t30 === null || t90 === null) continue;
      const all = h === 24 ? f.base_rate_24h : f.base_rate_48h;
      rows.push({ at, h, resets: known, outcome: resolved.outcome, base: { climatology_all: all, trailing_30d: t30, trailing_90d: t90 } });
    }
  }
  return { rows, considered, skipped };
}

export function* hazardGrid(): Generator<HazardParams> {
  for (const bin_edges_days of HAZARD_GRID.bin_edges_days)
    for (const half_life_days of HAZARD_GRID.half_life_days) for (const prior_days of HAZARD_GRID.prior_days) yield { half_life_days, prior_days, bin_edges_days };
}

/** Brier of every grid point on every row (computed once; the rolling origins only re-slice it). */
function gridBriers(rows: readonly Row[], grid: readonly HazardParams[]): number[][] {
  return grid.map((params) => rows.map((r) => brier(modelProbability('hazard-v3', r.resets, r.at, r.h * HOUR_MS, params), r.outcome)));
}

/** Grid index with the lowest mean of the 24h and 48h Brier over `use`d rows; ties keep grid order. */
function argmin(rows: readonly Row[], briers: readonly number[][], use: (r: Row) => boolean): number {
  let best = 0;
  let bestScore = Infinity;
  briers.forEach((bs, g) => {
    const by: Record<HorizonHours, number[]> = { 24: [], 48: [] };
    rows.forEach((r, i) => use(r) && by[r.h].push(bs[i]!));
    const score = ((mean(by[24]) ?? Infinity) + (mean(by[48]) ?? Infinity)) / 2;
    if (score < bestScore) {
      bestScore = score;
      best = g;
    }
  });
  return best;
}

const sameParams = (a: HazardParams, b: HazardParams) => a.half_life_days === b.half_life_days && a.prior_days === b.prior_days && a.bin_edges_days.join(',') === b.bin_edges_days.join(',');

/** At each monthly origin, the grid point chosen on rows resolved before it; each row is then forecast with the choice of its block. */
export function selectByRollingOrigin(rows: readonly Row[], toMs: number): { origins: OriginChoice[]; perRow: (HazardParams | null)[]; selected: HazardParams } {
  const grid = [...hazardGrid()];
  const briers = gridBriers(rows, grid);
  const origins: OriginChoice[] = [];
  const perRow: (HazardParams | null)[] = rows.map(() => null);
  const starts: number[] = [];
  for (let d = new Date(FIRST_ROLLING_ORIGIN); d.getTime() < toMs; d = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1))) starts.push(d.getTime());
  starts.forEach((o, k) => {
    const resolvedBefore = (r: Row) => r.at + r.h * HOUR_MS <= o;
    const g = argmin(rows, briers, resolvedBefore);
    origins.push({ origin: toIso(o), params: grid[g]!, rows: rows.filter(resolvedBefore).length });
    const next = starts[k + 1] ?? Infinity;
    rows.forEach((r, i) => {
      if (r.at >= o && r.at < next) perRow[i] = grid[g]!;
    });
  });
  const selected = grid[argmin(rows, briers, () => true)]!;
  return { origins, perRow, selected };
}

export function scoreLine(name: string, h: HorizonHours, scored: readonly { p: number; row: Row }[]): ScoreLine {
  const rows = scored.filter((s) => s.row.h === h);
  const versus = BASELINES.map((baseline): Comparison => ({
    baseline,
    baseline_brier: mean(rows.map((s) => brier(s.row.base[baseline], s.row.outcome))),
    ...skillWithInterval(rows.map((s) => ({ p: s.p, base: s.row.base[baseline], outcome: s.row.outcome })), BOOTSTRAP),
  }));
  return {
    name,
    horizon_hours: h,
    forecasts: rows.length,
    brier: mean(rows.map((s) => brier(s.p, s.row.outcome))),
    observed_frequency: mean(rows.map((s) => (s.row.outcome ? 1 : 0))),
    mean_probability: mean(rows.map((s) => s.p)),
    versus,
    reliability: reliabilityTable(rows.map((s) => ({ p: s.p, outcome: s.row.outcome }))),
  };
}

export interface BacktestOptions {
  from?: Date;
  /** End of the data: windows that close after it are unresolved and not scored. */
  to?: Date;
}

export function computeBacktest(events: readonly Event[], opts: BacktestOptions = {}): BacktestResult {
  const times = events.map(eventMs).filter(Number.isFinite);
  if (times.length === 0) throw new Error('[model/backtest] no events to backtest on');
  const fromMs = opts.from?.getTime() ?? Math.min(...times);
  const toMs = opts.to?.getTime() ?? Math.max(...times);
  const { rows, considered, skipped } = planRows(events, fromMs, toMs);
  const { origins, perRow, selected } = selectByRollingOrigin(rows, toMs);
  const evalRows = rows.map((row, i) => ({ row, params: perRow[i] })).filter((x): x is { row: Row; params: HazardParams } => x.params !== null);
  const models: { name: string; p: (row: Row, params: HazardParams) => number }[] = [
    { name: 'hazard-v3, rolling-origin (out of sample)', p: (r, params) => modelProbability('hazard-v3', r.resets, r.at, r.h * HOUR_MS, params) },
    { name: 'hazard-v3, shipped parameters (in sample)', p: (r) => modelProbability('hazard-v3', r.resets, r.at, r.h * HOUR_MS, HAZARD_V3_PARAMS) },
    { name: 'poisson-v1 (untuned baseline model)', p: (r) => modelProbability('poisson-v1', r.resets, r.at, r.h * HOUR_MS) },
  ];
  const lines = models.flatMap((m) => {
    const scored = evalRows.map(({ row, params }) => ({ row, p: m.p(row, params) }));
    return HORIZONS_HOURS.map((h) => scoreLine(m.name, h, scored));
  });
  const evalAts = evalRows.map((x) => x.row.at);
  return {
    rules: RESETBENCH_RULES,
    from: toIso(fromMs),
    to: toIso(toMs),
    evaluation: {
      from: evalAts.length === 0 ? '-' : toIso(Math.min(...evalAts)),
      to: evalAts.length === 0 ? '-' : toIso(Math.max(...evalAts)),
      rule: 'checkpoints from the first rolling origin on; each forecast uses the hyperparameters chosen at the latest origin before it, on checkpoints whose window had closed by that origin',
    },
    checkpoints: { considered, skipped_insufficient_data: skipped },
    origins,
    selected,
    matches_production: sameParams(selected, HAZARD_V3_PARAMS),
    lines,
  };
}
