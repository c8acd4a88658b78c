import { describe, expect, it } from 'vitest';
import { testEvent } from '../helpers/events.ts';
import { ACCURACY_WINDOW_DAYS, FORECAST_LOG_RETENTION_DAYS, appendForecastLog, computeAccuracy, shouldLogForecast } from '../../builder/model/accuracy.ts';
import type { Forecast } from '../../builder/model/forecast.ts';
import type { Event, ForecastLogEntry } from '../../builder/model/schemas.ts';

const ev = testEvent;

const forecast = (p24: number | null, p48: number | null = p24 === null ? null : Math.min(0.99, p24 * 1.5)): Forecast => ({
  probability_24h: p24,
  probability_48h: p48,
  base_rate_24h: p24 === null ? null : 0.2,
  base_rate_48h: p24 === null ? null : 0.35,
  sample_size: p24 === null ? 3 : 30,
  model_version: 'hazard-v2',
  explanation: { code: 'probability_hazard', params: {} },
  last_global_reset_at: null,
  window_days: 365,
});

const entry = (issuedAt: string, p24 = 0.3, p48 = 0.5): ForecastLogEntry => ({
  checkpoint: new Date(Math.floor(Date.parse(issuedAt) / 21_600_000) * 21_600_000).toISOString().replace('.000Z', 'Z'),
  issued_at: issuedAt,
  model_version: 'hazard-v2',
  probability_24h: p24,
  probability_48h: p48,
  base_rate_24h: 0.2,
  base_rate_48h: 0.4,
  sample_size: 30,
});

/** Runs the builder every 15 minutes (or `stepMinutes`) from `from` for `hours`, as the schedule does. */
function runEvery15Minutes(from: string, hours: number, stepMinutes = 15, f: Forecast = forecast(0.3)): ForecastLogEntry[] {
  let log: ForecastLogEntry[] = [];
  for (let t = Date.parse(from); t < Date.parse(from) + hours * 3_600_000; t += stepMinutes * 60_000) log = appendForecastLog(log, f, new Date(t));
  return log;
}

describe('forecast log', () => {
  it('logs exactly once per 6-hour checkpoint slot, at the first run of the slot', () => {
    const log = runEvery15Minutes('2026-06-01T00:00:00Z', 24);
    expect(log.map((e) => e.checkpoint)).toEqual(['2026-06-01T00:00:00Z', '2026-06-01T06:00:00Z', '2026-06-01T12:00:00Z', '2026-06-01T18:00:00Z']);
    expect(log.map((e) => e.issued_at)).toEqual(['2026-06-01T00:00:00Z', '2026-06-01T06:00:00Z', '2026-06-01T12:00:00Z', '2026-06-01T18:00:00Z']);
  });

  it('logs a late first run against the checkpoint of its slot, with issued_at the run time', () => {
    const log = runEvery15Minutes('2026-06-01T07:40:00Z', 2);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ checkpoint: '2026-06-01T06:00:00Z', issued_at: '2026-06-01T07:40:00Z', probability_24h: 0.3, base_rate_24h: 0.2, sample_size: 30 });
  });

  it('shouldLogForecast is true once per slot and false after a later checkpoint', () => {
    const log = [entry('2026-06-01T06:10:00Z')];
    expect(shouldLogForecast(log, new Date('2026-06-01T11:59:59Z'))).toBe(false);
    expect(shouldLogForecast(log, new Date('2026-06-01T12:00:00Z'))).toBe(true);
    expect(shouldLogForecast(log, new Date('2026-06-01T05:00:00Z'))).toBe(false);
    expect(shouldLogForecast([], new Date('2026-06-01T05:00:00Z'))).toBe(true);
  });

  it('never logs a null forecast, and logs the first non-null run of the slot instead', () => {
    let log = appendForecastLog([], forecast(null), new Date('2026-06-01T00:00:00Z'));
    expect(log).toEqual([]);
    log = appendForecastLog(log, forecast(0.25), new Date('2026-06-01T00:15:00Z'));
    expect(log).toHaveLength(1);
    expect(log[0]!.issued_at).toBe('2026-06-01T00:15:00Z');
  });

  it(`drops entries older than ${FORECAST_LOG_RETENTION_DAYS} days`, () => {
    // Last run: day 130 at 23:00, in the 18:00 slot; kept: checkpoints at or after day 10 23:00, i.e. day 11 00:00 .. day 130 18:00.
    const log = runEvery15Minutes('2026-01-01T00:00:00Z', (FORECAST_LOG_RETENTION_DAYS + 10) * 24, 60);
    expect(log.length).toBe(FORECAST_LOG_RETENTION_DAYS * 4);
    expect(log[0]!.checkpoint).toBe('2026-01-11T00:00:00Z');
    const last = Date.parse(log[log.length - 1]!.checkpoint);
    expect(last - Date.parse(log[0]!.checkpoint)).toBeLessThanOrEqual(FORECAST_LOG_RETENTION_DAYS * 86_400_000);
  });
});

describe('computeAccuracy', () => {
  it('is empty with null summaries when nothing is evaluable yet', () => {
    const asOf = new Date('2026-06-01T12:00:00Z');
    const a = computeAccuracy([entry('2026-06-01T00:00:00Z')], [], asOf);
    expect(a.window_days).toBe(ACCURACY_WINDOW_DAYS);
    expect(a.forecasts).toEqual([]);
    expect(a.summary).toEqual({ h24: { brier: null, climatology_brier: null, sample_size: 0 }, h48: { brier: null, climatology_brier: null, sample_size: 0 } });
    expect(computeAccuracy([], [], asOf).summary.h24.sample_size).toBe(0);
  });

  it('makes a forecast evaluable exactly at issued_at + horizon and not one second before', () => {
    const log = [entry('2026-06-01T00:00:00Z')];
    const before = computeAccuracy(log, [], new Date('2026-06-01T23:59:59Z'));
    expect(before.forecasts).toHaveLength(0);
    const at = computeAccuracy(log, [], new Date('2026-06-02T00:00:00Z'));
    expect(at.forecasts.map((f) => f.horizon_hours)).toEqual([24]);
    expect(computeAccuracy(log, [], new Date('2026-06-02T23:59:59Z')).forecasts).toHaveLength(1);
    expect(computeAccuracy(log, [], new Date('2026-06-03T00:00:00Z')).forecasts.map((f) => f.horizon_hours)).toEqual([24, 48]);
  });

  it('counts a reset in (issued_at, issued_at + horizon]: not at issued_at, yes at the end', () => {
    const log = [entry('2026-06-01T00:00:00Z')];
    const asOf = new Date('2026-06-05T00:00:00Z');
    const outcome24 = (events: Event[]) => computeAccuracy(log, events, asOf).forecasts.find((f) => f.horizon_hours === 24)!.outcome;
    expect(outcome24([ev('2026-06-01T00:00:00Z')])).toBe(false);
    expect(outcome24([ev('2026-06-01T00:00:01Z')])).toBe(true);
    expect(outcome24([ev('2026-06-02T00:00:00Z')])).toBe(true);
    expect(outcome24([ev('2026-06-02T00:00:01Z')])).toBe(false);
    // Banked grants are not the target.
    expect(outcome24([ev('2026-06-01T12:00:00Z', 'banked_grant')])).toBe(false);
    const f48 = computeAccuracy(log, [ev('2026-06-02T00:00:01Z')], asOf).forecasts.find((f) => f.horizon_hours === 48)!;
    expect(f48.outcome).toBe(true);
  });

  it('only scores forecasts issued in the last 30 days', () => {
    const asOf = new Date('2026-07-01T00:00:00Z');
    const log = [entry('2026-05-31T23:59:59Z'), entry('2026-06-01T00:00:00Z'), entry('2026-06-20T00:00:00Z')];
    const a = computeAccuracy(log, [], asOf);
    expect(new Set(a.forecasts.map((f) => f.issued_at))).toEqual(new Set(['2026-06-01T00:00:00Z', '2026-06-20T00:00:00Z']));
    expect(a.summary.h24.sample_size).toBe(2);
  });

  it('computes Brier and climatology Brier by hand', () => {
    // 24h: p=0.3 with a reset (0.49), p=0.1 without (0.01): mean 0.25; climatology 0.2: (0.64 + 0.04)/2 = 0.34.
    // 48h: p=0.5 with a reset (0.25), p=0.2 with one too (0.64): mean 0.445; climatology 0.4: (0.36 + 0.36)/2 = 0.36.
    const log = [entry('2026-06-01T00:00:00Z', 0.3, 0.5), entry('2026-06-02T00:00:00Z', 0.1, 0.2)];
    const events = [ev('2026-06-01T10:00:00Z'), ev('2026-06-03T20:00:00Z')];
    const a = computeAccuracy(log, events, new Date('2026-06-10T00:00:00Z'));
    expect(a.summary.h24.brier).toBeCloseTo(0.25, 12);
    expect(a.summary.h24.climatology_brier).toBeCloseTo(0.34, 12);
    expect(a.summary.h48.brier).toBeCloseTo(0.445, 12);
    expect(a.summary.h48.climatology_brier).toBeCloseTo(0.36, 12);
    expect(a.summary.h24.sample_size).toBe(2);
    const first = a.forecasts.find((f) => f.issued_at === '2026-06-01T00:00:00Z' && f.horizon_hours === 24)!;
    expect(first).toEqual({ checkpoint: '2026-06-01T00:00:00Z', issued_at: '2026-06-01T00:00:00Z', horizon_hours: 24, probability: 0.3, outcome: true, brier: expect.closeTo(0.49, 12), model_version: 'hazard-v2' });
    // Newest first.
    expect(a.forecasts[0]!.issued_at).toBe('2026-06-02T00:00:00Z');
  });
});
