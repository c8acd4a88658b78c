// Pure: walk-forward backtest of the forecast models on a fixed history, scored by ResetBench's rules, against
// the all-history climatology and trailing 30- and 90-day climatologies, with block-bootstrap intervals.
// Hyperparameters are chosen by rolling-origin evaluation: at each origin, only on checkpoints resolved before it.
import { HOUR_MS, HORIZONS_HOURS, TRAILING_CLIMATOLOGY_DAYS, checkpointAtOrAfter, toIso, trailingClimatology, type HorizonHours } from './climatology.ts';
import { eventMs } from './events.ts';
import { ANNOUNCEMENT_OVERDUE_GRACE_MS, dueMs, followThrough, pastAnnouncements, promisedBy, type AnnouncementReview } from './announcement.ts';
import { HAZARD_V3_PARAMS, MODEL_VERSIONS, PRODUCTION_MODEL, clipProbability, computeForecast, modelProbability, resetsKnownAt, type HazardParams, type KnownReset, type ModelVersion } from './forecast.ts';
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
  /** hazard-v3's best grid point on the rows resolved before the origin. */
  params: HazardParams;
  /** Checkpoint rows (24h + 48h) resolved before the origin that the choice was made on. */
  rows: number;
  /** Every candidate's objective (mean of the 24h and 48h Brier) on those rows; hazard-v3 at its best grid point. */
  scores: Record<ModelVersion, number>;
  /** The candidate with the lowest objective: it forecasts the month after the origin. */
  winner: ModelVersion;
}

/** Checkpoints with an announced reset pending and due inside the horizon, scored with and without the term. */
export interface AnnouncementRows {
  n: number;
  /** Below MIN_ANNOUNCEMENT_ROWS nothing can be claimed from these rows; the output says so. */
  enough: boolean;
  lines: ScoreLine[];
  posts: string[];
}

/** Fewer checkpoints than a week's worth (28) cannot tell a follow-through estimate from luck. */
export const MIN_ANNOUNCEMENT_ROWS = 28;

export interface BacktestResult {
  rules: string;
  from: string;
  to: string;
  evaluation: { from: string; to: string; rule: string };
  checkpoints: { considered: number; skipped_insufficient_data: number };
  origins: OriginChoice[];
  /** hazard-v3's grid choice on all resolved history: HAZARD_V3_PARAMS should match it. */
  selected: HazardParams;
  /** The winner at the latest origin: what forecast.ts ships as PRODUCTION_MODEL. */
  shipped: ModelVersion;
  matches_production: boolean;
  lines: ScoreLine[];
  announcements: AnnouncementRows;
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
    const score = objective(rows, bs, use);
    if (score < bestScore) {
      bestScore = score;
      best = g;
    }
  });
  return best;
}

const sameParams = (a: HazardParams, b: HazardParams) => a.half_life_days === b.half_life_days && a.prior_days === b.prior_days && a.bin_edges_days.join(',') === b.bin_edges_days.join(',');

const objective = (rows: readonly Row[], bs: readonly number[], use: (r: Row) => boolean) => {
  const by: Record<HorizonHours, number[]> = { 24: [], 48: [] };
  rows.forEach((r, i) => use(r) && by[r.h].push(bs[i]!));
  return ((mean(by[24]) ?? Infinity) + (mean(by[48]) ?? Infinity)) / 2;
};

/** A candidate's probability on a row; hazard-v3 with the given grid point, the climatologies clipped like any model. */
export function candidateProbability(model: ModelVersion, r: Row, params: HazardParams): number {
  if (model === 'climatology-30d') return clipProbability(r.base.trailing_30d);
  if (model === 'climatology-90d') return clipProbability(r.base.trailing_90d);
  return modelProbability(model, r.resets, r.at, r.h * HOUR_MS, params);
}

export interface Selection {
  origins: OriginChoice[];
  /** The candidate and parameters forecasting each row (null before the first origin). */
  perRow: ({ model: ModelVersion; params: HazardParams } | null)[];
  selected: HazardParams;
}

const monthStarts = (fromMs: number, toMs: number) => {
  const out: number[] = [];
  const d0 = new Date(fromMs);
  for (let d = new Date(Date.UTC(d0.getUTCFullYear(), d0.getUTCMonth() + 1, 1)); d.getTime() < toMs; d = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1))) out.push(d.getTime());
  return out;
};

/**
 * At each monthly origin every candidate (MODEL_VERSIONS: poisson-v1, hazard-v3, the trailing 30- and 90-day
 * climatologies) is scored by one objective, the mean of the 24h and 48h Brier, on the same rows: those resolved
 * before the origin for which every candidate had an out-of-sample forecast. hazard-v3's forecast of a row is
 * out of sample too: the grid point chosen on rows resolved before the start of the row's month (an inner
 * rolling origin). The winner, with the grid point chosen at the origin, forecasts the month after it.
 */
export function selectByRollingOrigin(rows: readonly Row[], toMs: number): Selection {
  const grid = [...hazardGrid()];
  const briers = gridBriers(rows, grid);
  const firstAt = Math.min(...rows.map((r) => r.at));
  // hazard-v3's out-of-sample Brier per row: the choice at the latest inner origin at or before the row.
  const inner = monthStarts(firstAt, toMs).map((o) => ({ o, g: argmin(rows, briers, (r) => r.at + r.h * HOUR_MS <= o) }));
  const hazardOos = rows.map((r, i) => {
    const choice = [...inner].reverse().find((x) => x.o <= r.at && rows.some((q) => q.at + q.h * HOUR_MS <= x.o));
    return choice === undefined ? null : briers[choice.g]![i]!;
  });
  const fixed = MODEL_VERSIONS.filter((m) => m !== 'hazard-v3').map((m) => ({ m, bs: rows.map((r) => brier(candidateProbability(m, r, HAZARD_V3_PARAMS), r.outcome)) }));
  const origins: OriginChoice[] = [];
  const perRow: Selection['perRow'] = rows.map(() => null);
  const starts: number[] = [];
  for (let d = new Date(FIRST_ROLLING_ORIGIN); d.getTime() < toMs; d = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1))) starts.push(d.getTime());
  starts.forEach((o, k) => {
    const resolvedBefore = (r: Row) => r.at + r.h * HOUR_MS <= o;
    const g = argmin(rows, briers, resolvedBefore);
    const scoredBefore = (r: Row) => resolvedBefore(r) && hazardOos[rows.indexOf(r)] !== null;
    const scores = { 'hazard-v3': objective(rows, hazardOos.map((b) => b ?? NaN), scoredBefore) } as Record<ModelVersion, number>;
    for (const f of fixed) scores[f.m] = objective(rows, f.bs, scoredBefore);
    // Ties keep MODEL_VERSIONS order; a strict improvement is needed to move.
    const winner = MODEL_VERSIONS.reduce((best, m) => (scores[m] < scores[best] ? m : best), MODEL_VERSIONS[0]);
    origins.push({ origin: toIso(o), params: grid[g]!, rows: rows.filter(scoredBefore).length, scores, winner });
    const next = starts[k + 1] ?? Infinity;
    rows.forEach((r, i) => {
      if (r.at >= o && r.at < next) perRow[i] = { model: winner, params: grid[g]! };
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
  /** data/announcement-review.json's posts: the announcement rows score the `ahead` ones. */
  announcementReview?: readonly AnnouncementReview[];
}

/**
 * Rows whose checkpoint had an `ahead` announcement pending (posted at or before it, its promised reset not yet
 * recorded) and due inside the horizon (due = end of the promised window, 48 h when it names none; up to 6 h
 * overdue still counts, as in the live rule). Each is scored with the shipped model alone and with the
 * announcement term: max(model, follow-through), the follow-through estimated from the announcements whose
 * window had closed by the checkpoint (out of sample).
 */
function announcementRows(rows: readonly Row[], events: readonly Event[], review: readonly AnnouncementReview[], shipped: ModelVersion): AnnouncementRows {
  const resets = events.filter((e) => e.type === 'global_reset').map((e) => ({ id: e.id, ms: eventMs(e) })).filter((r) => Number.isFinite(r.ms));
  const ahead = review.filter((a) => a.classification === 'ahead');
  const scored: { p: number; row: Row; alone: number }[] = [];
  const posts = new Set<string>();
  for (const row of rows) {
    const pending = ahead.filter((a) => {
      const from = Date.parse(a.announced_at);
      const due = dueMs(a);
      if (from > row.at || due <= row.at - ANNOUNCEMENT_OVERDUE_GRACE_MS || due > row.at + row.h * HOUR_MS) return false;
      return !resets.some((r) => promisedBy(a, r) && r.ms >= from - 60_000 && r.ms <= row.at);
    });
    if (pending.length === 0) continue;
    pending.forEach((a) => posts.add(a.post_id));
    const alone = candidateProbability(shipped, row, HAZARD_V3_PARAMS);
    const term = clipProbability(followThrough(pastAnnouncements(events, row.at, review)));
    scored.push({ row, alone, p: Math.max(alone, term) });
  }
  const lines = HORIZONS_HOURS.flatMap((h) => [
    scoreLine(`${shipped} alone, announcement checkpoints`, h, scored.map((x) => ({ row: x.row, p: x.alone }))),
    scoreLine(`${shipped} + announcement term`, h, scored),
  ]);
  return { n: scored.length, enough: scored.length >= MIN_ANNOUNCEMENT_ROWS, lines, posts: [...posts].sort() };
}

export function computeBacktest(events: readonly Event[], opts: BacktestOptions = {}): BacktestResult {
  const times = events.map(eventMs).filter(Number.isFinite);
  if (times.length === 0) throw new Error('[model/backtest] no events to backtest on');
  const fromMs = opts.from?.getTime() ?? Math.min(...times);
  const toMs = opts.to?.getTime() ?? Math.max(...times);
  const { rows, considered, skipped } = planRows(events, fromMs, toMs);
  const { origins, perRow, selected } = selectByRollingOrigin(rows, toMs);
  const evalRows = rows.map((row, i) => ({ row, choice: perRow[i] })).filter((x): x is { row: Row; choice: NonNullable<Selection['perRow'][number]> } => x.choice !== null && x.choice !== undefined);
  const shipped = origins[origins.length - 1]?.winner ?? PRODUCTION_MODEL;
  const models: { name: string; p: (row: Row, choice: { model: ModelVersion; params: HazardParams }) => number }[] = [
    { name: 'selected by rolling origin (out of sample)', p: (r, c) => candidateProbability(c.model, r, c.params) },
    { name: 'hazard-v3, rolling-origin (out of sample)', p: (r, c) => candidateProbability('hazard-v3', r, c.params) },
    { name: 'hazard-v3, shipped parameters (in sample)', p: (r) => candidateProbability('hazard-v3', r, HAZARD_V3_PARAMS) },
    { name: 'poisson-v1 (untuned baseline model)', p: (r) => candidateProbability('poisson-v1', r, HAZARD_V3_PARAMS) },
    { name: 'climatology-30d (as a model, clipped)', p: (r) => candidateProbability('climatology-30d', r, HAZARD_V3_PARAMS) },
    { name: 'climatology-90d (as a model, clipped)', p: (r) => candidateProbability('climatology-90d', r, HAZARD_V3_PARAMS) },
  ];
  const lines = models.flatMap((m) => {
    const scored = evalRows.map(({ row, choice }) => ({ row, p: m.p(row, choice) }));
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
      rule: 'checkpoints from the first rolling origin on; each forecast uses the candidate (and hazard-v3 parameters) chosen at the latest origin before it, on checkpoints whose window had closed by that origin',
    },
    checkpoints: { considered, skipped_insufficient_data: skipped },
    origins,
    selected,
    shipped,
    matches_production: shipped === PRODUCTION_MODEL && sameParams(selected, HAZARD_V3_PARAMS),
    lines,
    announcements: announcementRows(rows, events, opts.announcementReview ?? [], shipped),
  };
}
