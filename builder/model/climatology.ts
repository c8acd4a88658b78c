// Pure: the checkpoint grid ResetBench scores on, and base rates (climatologies) measured on that grid.
import { DAY_MS } from './events.ts';

export const HOUR_MS = 60 * 60 * 1000;
export const HORIZONS_HOURS = [24, 48] as const;
export type HorizonHours = (typeof HORIZONS_HOURS)[number];

/** ResetBench scores forecasts at 00, 06, 12 and 18 UTC; every base rate here is measured on the same grid. */
export const CHECKPOINT_INTERVAL_MS = 6 * HOUR_MS;
/** The trailing windows of the baselines a user could compute themselves ("how often lately?"). */
export const TRAILING_CLIMATOLOGY_DAYS = [30, 90] as const;

/** The 6-hour checkpoint (00/06/12/18 UTC) at or before `ms`; the epoch is midnight UTC, so plain flooring works. */
export const checkpointAtOrBefore = (ms: number): number =>
  Math.floor(ms / CHECKPOINT_INTERVAL_MS) * CHECKPOINT_INTERVAL_MS;
export const checkpointAtOrAfter = (ms: number): number =>
  Math.ceil(ms / CHECKPOINT_INTERVAL_MS) * CHECKPOINT_INTERVAL_MS;

/** ISO 8601 UTC, without the `.000` when the instant is a whole second. */
export const toIso = (ms: number): string => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');

/** Share of checkpoint windows (c, c + h] in [fromMs, asOfMs] holding a reset (`times` ascending); null for none. */
export function windowFrequency(times: readonly number[], fromMs: number, asOfMs: number, horizonMs: number) {
  let i = 0;
  let windows = 0;
  let hits = 0;
  for (let c = checkpointAtOrAfter(fromMs); c + horizonMs <= asOfMs; c += CHECKPOINT_INTERVAL_MS) {
    while (i < times.length && times[i]! <= c) i++;
    windows++;
    if (i < times.length && times[i]! <= c + horizonMs) hits++;
  }
  return windows === 0 ? null : hits / windows;
}

/** The trailing climatology: the share of windows starting in the last `days` days, closed by asOf. */
export const trailingClimatology = (times: readonly number[], asOfMs: number, days: number, horizonMs: number) =>
  windowFrequency(times, asOfMs - days * DAY_MS, asOfMs, horizonMs);
