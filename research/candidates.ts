// Pure: the candidate forecast models the backtest compares, each a family of grid points. Only the winner ships
// (builder/model/forecast.ts); the others live here, outside the runtime.
import { HOUR_MS, checkpointAtOrAfter } from '../builder/model/climatology.ts';
import { DAY_MS } from '../builder/model/events.ts';
import { clipProbability, poissonProbability } from '../builder/model/forecast.ts';

export const BASELINES = ['climatology_all', 'trailing_30d', 'trailing_90d'] as const;
export type Baseline = (typeof BASELINES)[number];

/** One checkpoint and horizon: what was known then, what happened, and every baseline's probability. */
export interface Row {
  at: number;
  h: 24 | 48;
  /** Epoch ms of the global resets known at `at`, ascending (forecast.ts `resetsKnownAt`). */
  times: number[];
  outcome: boolean;
  base: Record<Baseline, number>;
}

/** A model and the grid points the rolling origins choose from; a single point: nothing to tune. */
interface Family<P> {
  grid: readonly P[];
  probability: (row: Row, params: P) => number;
  describe: (params: P) => string;
}

interface HazardParams {
  /** Weight of an event or of exposure halves every `half_life_days` before `asOf` (Infinity: no decay). */
  half_life_days: number;
  /**
   * Gamma prior on each bin's hazard, worth `prior_days` days of exposure at the overall (recency-weighted)
   * rate: bins with little exposure (long gaps are rare) shrink to the overall rate instead of to noise.
   */
  prior_days: number;
  /** Lower edges, in days since the last global reset, of the piecewise-constant hazard; the first is 0. */
  bin_edges_days: readonly number[];
}

/**
 * hazard-v3: a piecewise-constant hazard on the time since the last global reset, estimated as recency-weighted
 * events over recency-weighted exposure per bin (a piecewise-exponential survival model), each bin shrunk to
 * the overall recency-weighted rate with a gamma prior worth `prior_days` of exposure. Recency weighting lets
 * it follow regime changes (months of silence, then several resets a week). P(>=1 reset in the next h) is
 * 1 - exp(-cumulative hazard from the current gap s0 to s0 + h), exact for a renewal process because only the
 * first reset in the window matters.
 */
function hazardCumulative(times: readonly number[], asOfMs: number, horizonMs: number, params: HazardParams): number {
  const edges = params.bin_edges_days.map((d) => d * DAY_MS);
  const k = edges.length;
  const upper = (b: number) => (b + 1 < k ? edges[b + 1]! : Infinity);
  const halfLifeMs = params.half_life_days * DAY_MS;
  const decays = Number.isFinite(halfLifeMs);
  // Weight exp(-ln2 * age / half-life); offsets from a reset reuse its weight times a precomputed factor, which
  // keeps the backtest's grid search cheap.
  const c = decays ? Math.LN2 / halfLifeMs : 0;
  const weight = (u: number) => (decays ? Math.exp((u - asOfMs) * c) : 1);
  const edgeFactor = edges.map((offset) => (decays ? Math.exp(offset * c) : 1));
  // Exact integral of the weight over [a, z], in days, from the weights at both ends.
  const exposure = (a: number, wa: number, z: number, wz: number) => (decays ? (wz - wa) / c : z - a) / DAY_MS;

  const events = new Array<number>(k).fill(0);
  const exposed = new Array<number>(k).fill(0);
  let ws = weight(times[0]!);
  for (let i = 0; i < times.length; i++) {
    const start = times[i]!;
    const next = times[i + 1];
    const end = next ?? asOfMs;
    const we = next === undefined ? 1 : weight(next);
    for (let b = 0; b < k && start + edges[b]! < end; b++) {
      const capped = start + upper(b) >= end;
      exposed[b]! += exposure(
        start + edges[b]!,
        ws * edgeFactor[b]!,
        capped ? end : start + upper(b),
        capped ? we : ws * edgeFactor[b + 1]!,
      );
    }
    if (next !== undefined) events[edges.findLastIndex((e, b) => b === 0 || next - start >= e)]! += we;
    ws = we;
  }
  const sum = (xs: readonly number[]) => xs.reduce((acc, x) => acc + x, 0);
  const overall = sum(exposed) > 0 ? sum(events) / sum(exposed) : 0;
  const s0 = asOfMs - times[times.length - 1]!;
  let cumulative = 0;
  for (let b = 0; b < k; b++) {
    const hazard = (events[b]! + params.prior_days * overall) / (exposed[b]! + params.prior_days);
    const a = Math.max(s0, edges[b]!);
    const z = Math.min(s0 + horizonMs, upper(b));
    if (z > a) cumulative += (hazard * (z - a)) / DAY_MS;
  }
  return cumulative;
}

interface SelfExcitingParams {
  /** Share of the resets the model attributes to an earlier reset (the process's branching ratio, < 1). */
  branching: number;
  /** The extra chance a reset adds halves every `kernel_half_life_days` days. */
  kernel_half_life_days: number;
}

/**
 * self-exciting-v1, a Hawkes process with an exponential kernel: the reset intensity is a long-run rate mu plus, for
 * every earlier reset, `branching` x a kernel that decays with the given half-life. mu = (1 - branching) x the mean
 * rate of the known history (at most a year), so the intensity averages to that rate. A burst raises the forecast;
 * each quiet day lowers it, back towards mu. Until the first new reset the intensity is known exactly, so
 * P(>=1 reset in (t, t+h]) = 1 - exp(-integral of the intensity over it). `times` ascending.
 */
export function selfExcitingProbability(
  times: readonly number[],
  asOfMs: number,
  horizonMs: number,
  params: SelfExcitingParams,
): number {
  const spanMs = Math.min(365 * DAY_MS, asOfMs - times[0]!);
  const n = times.filter((t) => t > asOfMs - spanMs).length;
  const mu = ((1 - params.branching) * n) / spanMs;
  const beta = Math.LN2 / (params.kernel_half_life_days * DAY_MS);
  let excited = 0;
  for (const t of times)
    excited += params.branching * (Math.exp(-beta * (asOfMs - t)) - Math.exp(-beta * (asOfMs + horizonMs - t)));
  return 1 - Math.exp(-(mu * horizonMs + excited));
}

interface BlendParams {
  /** Weight of a closed window halves every `half_life_days` days. */
  half_life_days: number;
  /** The all-history base rate counts as this many windows (4 a day). */
  prior_windows: number;
}

/**
 * ewma-blend: the share of closed checkpoint windows that held a reset, each window weighted by its recency, shrunk
 * towards the all-history base rate: (sum w*y + k*base) / (sum w + k). As quiet windows accumulate the weighted
 * share falls, and with few recent windows it stays near the long-run rate.
 */
function blendProbability(row: Row, params: BlendParams): number {
  const horizonMs = row.h * HOUR_MS;
  const c0 = Math.LN2 / (params.half_life_days * DAY_MS);
  const { times } = row;
  let weights = 0;
  let hits = 0;
  let i = 0;
  for (let c = checkpointAtOrAfter(times[0]!); c + horizonMs <= row.at; c += 6 * HOUR_MS) {
    while (i < times.length && times[i]! <= c) i++;
    const w = Math.exp(-c0 * (row.at - (c + horizonMs)));
    weights += w;
    if (i < times.length && times[i]! <= c + horizonMs) hits += w;
  }
  return clipProbability((hits + params.prior_windows * row.base.climatology_all) / (weights + params.prior_windows));
}

const product = <A, B, T>(as: readonly A[], bs: readonly B[], f: (a: A, b: B) => T): T[] =>
  as.flatMap((a) => bs.map((b) => f(a, b)));

const fixed = (p: (row: Row) => number, what: string): Family<null> => ({
  grid: [null],
  probability: (r) => p(r),
  describe: () => what,
});

const FAMILIES = {
  'climatology-30d': fixed((r) => clipProbability(r.base.trailing_30d), 'trailing 30-day base rate, clipped'),
  'climatology-90d': fixed((r) => clipProbability(r.base.trailing_90d), 'trailing 90-day base rate, clipped'),
  'poisson-v1': fixed((r) => poissonProbability(r.times, r.at, r.h * HOUR_MS), 'trailing 90-day Poisson rate'),
  // Infinity means no recency decay, a single bin edge [0] no time-since-last effect.
  'hazard-v3': {
    grid: [[0], [0, 2, 7], [0, 1, 3, 7, 14], [0, 1, 2, 4, 7, 14, 30]].flatMap((bin_edges_days) =>
      product([7, 14, 30, 60, 90, 180, Infinity], [1, 3, 7, 14, 30], (half_life_days, prior_days) => ({
        half_life_days,
        prior_days,
        bin_edges_days,
      })),
    ),
    probability: (r, p) => clipProbability(1 - Math.exp(-hazardCumulative(r.times, r.at, r.h * HOUR_MS, p))),
    describe: (p) =>
      `half_life_days=${p.half_life_days} prior_days=${p.prior_days} bin_edges_days=[${p.bin_edges_days.join(',')}]`,
  } satisfies Family<HazardParams>,
  'ewma-blend': {
    grid: product([4, 7, 14, 30], [12, 28, 56, 112], (half_life_days, prior_windows) => ({
      half_life_days,
      prior_windows,
    })),
    probability: blendProbability,
    describe: (p) => `half_life_days=${p.half_life_days} prior_windows=${p.prior_windows}`,
  } satisfies Family<BlendParams>,
  'self-exciting-v1': {
    grid: product([0.5, 0.7, 0.8, 0.9], [3, 7, 14, 30], (branching, kernel_half_life_days) => ({
      branching,
      kernel_half_life_days,
    })),
    probability: (r, p) => clipProbability(selfExcitingProbability(r.times, r.at, r.h * HOUR_MS, p)),
    describe: (p) => `branching=${p.branching} kernel_half_life_days=${p.kernel_half_life_days}`,
  } satisfies Family<SelfExcitingParams>,
};

export type Candidate = keyof typeof FAMILIES;
export const CANDIDATES = Object.keys(FAMILIES) as Candidate[];
/** Every family, typed loosely so the selection can treat them alike (each only ever gets its own grid points). */
export const family = (c: Candidate): Family<unknown> => FAMILIES[c] as unknown as Family<unknown>;
/** The shipped model's parameters, as forecast.ts has them (poisson-v1 has none to tune). */
export const SHIPPED_PARAMS: unknown = null;
