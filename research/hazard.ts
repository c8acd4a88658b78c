// Pure: candidate models that do not ship (a recency-weighted piecewise hazard and a self-exciting process), scored
// against the shipped one in the backtest.
import { DAY_MS } from '../builder/model/events.ts';

export interface HazardParams {
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

export interface SelfExcitingParams {
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
  const from = asOfMs - spanMs;
  const n = times.filter((t) => t > from).length;
  const mu = ((1 - params.branching) * n) / spanMs;
  const beta = Math.LN2 / (params.kernel_half_life_days * DAY_MS);
  let excited = 0;
  for (const t of times)
    excited += params.branching * (Math.exp(-beta * (asOfMs - t)) - Math.exp(-beta * (asOfMs + horizonMs - t)));
  return 1 - Math.exp(-(mu * horizonMs + excited));
}

/**
 * hazard-v3: a piecewise-constant hazard on the time since the last global reset, estimated as recency-weighted
 * events over recency-weighted exposure per bin (a piecewise-exponential survival model), each bin shrunk to
 * the overall recency-weighted rate with a gamma prior worth `prior_days` of exposure. Recency weighting lets
 * it follow regime changes (months of silence, then several resets a week). P(>=1 reset in the next h) is
 * 1 - exp(-cumulative hazard from the current gap s0 to s0 + h), exact for a renewal process because only the
 * first reset in the window matters.
 */
export function hazardCumulative(
  times: readonly number[],
  asOfMs: number,
  horizonMs: number,
  params: HazardParams,
): number {
  const edges = params.bin_edges_days.map((d) => d * DAY_MS);
  const k = edges.length;
  const lower = (b: number) => edges[b]!;
  const upper = (b: number) => (b + 1 < k ? edges[b + 1]! : Infinity);
  const binOf = (s: number) => {
    let b = k - 1;
    while (b > 0 && s < lower(b)) b--;
    return b;
  };
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
    for (let b = 0; b < k; b++) {
      const a = start + lower(b);
      if (a >= end) break;
      const capped = start + upper(b) >= end;
      exposed[b]! += exposure(
        a,
        ws * edgeFactor[b]!,
        capped ? end : start + upper(b),
        capped ? we : ws * edgeFactor[b + 1]!,
      );
    }
    if (next !== undefined) events[binOf(next - start)]! += we;
    ws = we;
  }
  const sum = (xs: readonly number[]) => xs.reduce((acc, x) => acc + x, 0);
  const totalExposed = sum(exposed);
  const overall = totalExposed > 0 ? sum(events) / totalExposed : 0;
  const hazard = edges.map((_, b) => (events[b]! + params.prior_days * overall) / (exposed[b]! + params.prior_days));

  const s0 = asOfMs - times[times.length - 1]!;
  let cumulative = 0;
  for (let b = 0; b < k; b++) {
    const a = Math.max(s0, lower(b));
    const z = Math.min(s0 + horizonMs, upper(b));
    if (z > a) cumulative += (hazard[b]! * (z - a)) / DAY_MS;
  }
  return cumulative;
}
