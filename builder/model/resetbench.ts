// Pure: the scoring rules of ResetBench, the public benchmark 24h/48h reset forecasts are compared on, shared by
// the backtest and the published accuracy so both score exactly the same way.
//  - checkpoints at 00, 06, 12 and 18 UTC;
//  - the forecast scored at checkpoint t is the last one issued at or before t, and at most 6 h old (else missed);
//  - the outcome is whether a global reset happened in (t, t + h];
//  - a checkpoint resolves only after its window closed (t + h <= now).
import { HOUR_MS } from './climatology.ts';

export const RESETBENCH_RULES =
  'ResetBench rules: checkpoints 00/06/12/18 UTC; the last forecast issued at or before the checkpoint and at most 6 h old; outcome = a global reset in (t, t+h]; a checkpoint resolves only after its window closed';
export const MAX_FORECAST_AGE_MS = 6 * HOUR_MS;

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
  const ids = resets
    .filter((r) => r.ms > t && r.ms <= end)
    .map((r) => r.id)
    .sort();
  return { outcome: ids.length > 0, event_ids: ids };
}

export function brier(p: number, outcome: boolean): number {
  return (p - (outcome ? 1 : 0)) ** 2;
}

export interface ReliabilityBin {
  lower: number;
  upper: number;
  count: number;
  mean_probability: number | null;
  observed_frequency: number | null;
}

/** Forecast probability in equal-width bins against how often the outcome happened, with counts. */
export function reliabilityTable(pairs: readonly { p: number; outcome: boolean }[], bins = 10): ReliabilityBin[] {
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
    mean_probability: b.n === 0 ? null : b.p / b.n,
    observed_frequency: b.n === 0 ? null : b.o / b.n,
  }));
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

export interface SkillInterval {
  skill: number | null;
  lower: number | null;
  upper: number | null;
}

export interface BootstrapOptions {
  /** Consecutive checkpoints resampled together (overlapping windows and bursts make neighbours dependent). */
  blockLength: number;
  iterations: number;
  seed: number;
}

/**
 * Brier skill score 1 - sum(model Brier) / sum(baseline Brier) over rows in time order, with a 95% moving-block
 * bootstrap interval (percentiles 2.5 and 97.5).
 */
export function skillWithInterval(
  rows: readonly { p: number; base: number; outcome: boolean }[],
  opts: BootstrapOptions,
): SkillInterval {
  const n = rows.length;
  const bm = rows.map((r) => brier(r.p, r.outcome));
  const bb = rows.map((r) => brier(r.base, r.outcome));
  const skillOf = (m: number, b: number) => (b === 0 ? null : 1 - m / b);
  const total = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
  const skill = n === 0 ? null : skillOf(total(bm), total(bb));
  if (n === 0 || skill === null) return { skill, lower: null, upper: null };
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
    const s = skillOf(m, b);
    if (s !== null) draws.push(s);
  }
  draws.sort((x, y) => x - y);
  const q = (f: number) => draws[Math.min(draws.length - 1, Math.max(0, Math.round(f * (draws.length - 1))))] ?? null;
  return { skill, lower: q(0.025), upper: q(0.975) };
}
