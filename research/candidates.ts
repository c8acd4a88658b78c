// Pure: the candidate forecast models the backtest compares, each a family of grid points. Only the winner ships
// (builder/model/forecast.ts); the others live here, outside the runtime.
import { HOUR_MS, checkpointAtOrAfter } from '../builder/model/climatology.ts';
import { DAY_MS } from '../builder/model/events.ts';
import { clipProbability, poissonProbability } from '../builder/model/forecast.ts';
import { hazardCumulative, selfExcitingProbability, type HazardParams, type SelfExcitingParams } from './hazard.ts';

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

export interface Family<P> {
  name: string;
  /** The grid points the rolling origins choose from; a single point: nothing to tune. */
  grid: readonly P[];
  probability: (row: Row, params: P) => number;
  describe: (params: P) => string;
}

/** hazard-v3's grid; Infinity means no recency decay, a single bin edge [0] no time-since-last effect. */
const HAZARD_GRID = {
  half_life_days: [7, 14, 30, 60, 90, 180, Infinity],
  prior_days: [1, 3, 7, 14, 30],
  bin_edges_days: [[0], [0, 2, 7], [0, 1, 3, 7, 14], [0, 1, 2, 4, 7, 14, 30]],
} as const satisfies { [K in keyof HazardParams]: readonly HazardParams[K][] };

const SELF_EXCITING_GRID = {
  branching: [0.5, 0.7, 0.8, 0.9],
  kernel_half_life_days: [3, 7, 14, 30],
} as const;

export interface BlendParams {
  /** Weight of a closed window halves every `half_life_days` days. */
  half_life_days: number;
  /** The all-history base rate counts as this many windows (4 a day). */
  prior_windows: number;
}

const BLEND_GRID = { half_life_days: [4, 7, 14, 30], prior_windows: [12, 28, 56, 112] } as const;

const product = <A, B, T>(as: readonly A[], bs: readonly B[], f: (a: A, b: B) => T): T[] =>
  as.flatMap((a) => bs.map((b) => f(a, b)));

/**
 * ewma-blend: the share of closed checkpoint windows that held a reset, each window weighted by its recency, shrunk
 * towards the all-history base rate: (sum w*y + k*base) / (sum w + k). As quiet windows accumulate the weighted
 * share falls, and with few recent windows it stays near the long-run rate.
 */
function blendProbability(row: Row, params: BlendParams): number {
  const horizonMs = row.h * HOUR_MS;
  const c0 = Math.LN2 / (params.half_life_days * DAY_MS);
  let weights = 0;
  let hits = 0;
  let i = 0;
  const { times } = row;
  for (let c = checkpointAtOrAfter(times[0]!); c + horizonMs <= row.at; c += 6 * HOUR_MS) {
    while (i < times.length && times[i]! <= c) i++;
    const w = Math.exp(-c0 * (row.at - (c + horizonMs)));
    weights += w;
    if (i < times.length && times[i]! <= c + horizonMs) hits += w;
  }
  return clipProbability((hits + params.prior_windows * row.base.climatology_all) / (weights + params.prior_windows));
}

const none = [null] as const;
const fixed = (name: string, p: (row: Row) => number, what: string): Family<null> => ({
  name,
  grid: none,
  probability: (r) => p(r),
  describe: () => what,
});

export const FAMILIES = {
  'climatology-30d': fixed(
    'climatology-30d',
    (r) => clipProbability(r.base.trailing_30d),
    'trailing 30-day base rate, clipped',
  ),
  'climatology-90d': fixed(
    'climatology-90d',
    (r) => clipProbability(r.base.trailing_90d),
    'trailing 90-day base rate, clipped',
  ),
  'poisson-v1': fixed(
    'poisson-v1',
    (r) => poissonProbability(r.times, r.at, r.h * HOUR_MS),
    'trailing 90-day Poisson rate',
  ),
  'hazard-v3': {
    name: 'hazard-v3',
    grid: HAZARD_GRID.bin_edges_days.flatMap((bin_edges_days) =>
      product(HAZARD_GRID.half_life_days, HAZARD_GRID.prior_days, (half_life_days, prior_days): HazardParams => ({
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
    name: 'ewma-blend',
    grid: product(
      BLEND_GRID.half_life_days,
      BLEND_GRID.prior_windows,
      (half_life_days, prior_windows): BlendParams => ({ half_life_days, prior_windows }),
    ),
    probability: blendProbability,
    describe: (p) => `half_life_days=${p.half_life_days} prior_windows=${p.prior_windows}`,
  } satisfies Family<BlendParams>,
  'self-exciting-v1': {
    name: 'self-exciting-v1',
    grid: product(
      SELF_EXCITING_GRID.branching,
      SELF_EXCITING_GRID.kernel_half_life_days,
      (branching, kernel_half_life_days): SelfExcitingParams => ({ branching, kernel_half_life_days }),
    ),
    probability: (r, p) => clipProbability(selfExcitingProbability(r.times, r.at, r.h * HOUR_MS, p)),
    describe: (p) => `branching=${p.branching} kernel_half_life_days=${p.kernel_half_life_days}`,
  } satisfies Family<SelfExcitingParams>,
} as const;

export type Candidate = keyof typeof FAMILIES;
export const CANDIDATES = Object.keys(FAMILIES) as Candidate[];
/** Every family, typed loosely so the selection can treat them alike (each only ever gets its own grid points). */
export const family = (c: Candidate): Family<unknown> => FAMILIES[c] as unknown as Family<unknown>;
/** The shipped model's parameters, as forecast.ts has them (poisson-v1 has none to tune). */
export const SHIPPED_PARAMS: unknown = null;
