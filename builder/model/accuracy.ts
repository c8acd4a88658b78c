// Pure: the as-issued forecast log (one entry per 6-hour checkpoint) and the published accuracy of past forecasts.
import { DAY_MS, eventMs } from './events.ts';
import { HORIZONS_HOURS, HOUR_MS, checkpointAtOrBefore, toIso, type Forecast, type HorizonHours } from './forecast.ts';
import type { Event, ForecastLogEntry } from './schemas.ts';

/** Accuracy is published for the last 30 days: long enough for ~120 forecasts a horizon, short enough to show drift. */
export const ACCURACY_WINDOW_DAYS = 30;
/** The log keeps four times the accuracy window, so a later change of window or a re-score has data to use. */
export const FORECAST_LOG_RETENTION_DAYS = 120;

export interface ScoredLogForecast {
  checkpoint: string;
  issued_at: string;
  horizon_hours: HorizonHours;
  probability: number;
  outcome: boolean;
  brier: number;
  model_version: string;
}

export interface HorizonSummary {
  brier: number | null;
  climatology_brier: number | null;
  sample_size: number;
}

export interface Accuracy {
  window_days: number;
  forecasts: ScoredLogForecast[];
  summary: { h24: HorizonSummary; h48: HorizonSummary };
}

/**
 * True when the run at `asOf` is the first in its checkpoint slot: the builder runs every 15 minutes, and the
 * forecast published at the first run at or after 00/06/12/18 UTC is the one that gets scored. A log that
 * already holds this or a later checkpoint (a clock that went backwards) is left alone.
 */
export function shouldLogForecast(log: readonly ForecastLogEntry[], asOf: Date): boolean {
  const slot = checkpointAtOrBefore(asOf.getTime());
  return !log.some((e) => Date.parse(e.checkpoint) >= slot);
}

/**
 * The log with the forecast at `asOf` appended when it is the first of its slot and has probabilities (a null
 * forecast is never logged: there is nothing to score, and a 0 would be invented), trimmed to the retention.
 */
export function appendForecastLog(log: readonly ForecastLogEntry[], forecast: Forecast, asOf: Date): ForecastLogEntry[] {
  const asOfMs = asOf.getTime();
  const keepFrom = asOfMs - FORECAST_LOG_RETENTION_DAYS * DAY_MS;
  const kept = log.filter((e) => Date.parse(e.checkpoint) >= keepFrom);
  const { probability_24h: p24, probability_48h: p48, base_rate_24h: b24, base_rate_48h: b48 } = forecast;
  if (!shouldLogForecast(log, asOf) || p24 === null || p48 === null || b24 === null || b48 === null) return kept;
  const entry: ForecastLogEntry = {
    checkpoint: toIso(checkpointAtOrBefore(asOfMs)),
    issued_at: toIso(asOfMs),
    model_version: forecast.model_version,
    probability_24h: p24,
    probability_48h: p48,
    base_rate_24h: b24,
    base_rate_48h: b48,
    sample_size: forecast.sample_size,
  };
  return [...kept, entry].sort((a, b) => Date.parse(a.checkpoint) - Date.parse(b.checkpoint));
}

const mean = (xs: readonly number[]) => (xs.length === 0 ? null : xs.reduce((s, x) => s + x, 0) / xs.length);

/**
 * Scores the logged forecasts issued in the last 30 days whose horizon has fully elapsed (issued_at + horizon
 * <= asOf). The outcome is whether a global reset's event time fell in (issued_at, issued_at + horizon]: the
 * forecast was made from what was known at issued_at, so a reset at that very instant was already in it.
 * Climatology is the base rate logged with each forecast, i.e. as it was known at issue time.
 */
export function computeAccuracy(log: readonly ForecastLogEntry[], events: readonly Event[], asOf: Date): Accuracy {
  const asOfMs = asOf.getTime();
  const windowStart = asOfMs - ACCURACY_WINDOW_DAYS * DAY_MS;
  const resets = events
    .filter((e) => e.type === 'global_reset')
    .map(eventMs)
    .filter((t) => t <= asOfMs);
  const forecasts: ScoredLogForecast[] = [];
  const climatology: Record<HorizonHours, number[]> = { 24: [], 48: [] };
  for (const entry of log) {
    const issued = Date.parse(entry.issued_at);
    if (issued < windowStart) continue;
    for (const h of HORIZONS_HOURS) {
      const end = issued + h * HOUR_MS;
      if (end > asOfMs) continue;
      const outcome = resets.some((t) => t > issued && t <= end);
      const o = outcome ? 1 : 0;
      const probability = h === 24 ? entry.probability_24h : entry.probability_48h;
      const baseRate = h === 24 ? entry.base_rate_24h : entry.base_rate_48h;
      forecasts.push({ checkpoint: entry.checkpoint, issued_at: entry.issued_at, horizon_hours: h, probability, outcome, brier: (probability - o) ** 2, model_version: entry.model_version });
      climatology[h].push((baseRate - o) ** 2);
    }
  }
  // Newest first, like every other list the API publishes.
  forecasts.sort((a, b) => Date.parse(b.issued_at) - Date.parse(a.issued_at) || a.horizon_hours - b.horizon_hours);
  const summarise = (h: HorizonHours): HorizonSummary => {
    const rows = forecasts.filter((f) => f.horizon_hours === h);
    return { brier: mean(rows.map((f) => f.brier)), climatology_brier: mean(climatology[h]), sample_size: rows.length };
  };
  return { window_days: ACCURACY_WINDOW_DAYS, forecasts, summary: { h24: summarise(24), h48: summarise(48) } };
}
