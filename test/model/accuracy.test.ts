import { describe, expect, it } from 'vitest';
import { testEvent } from '../helpers/events.ts';
import {
  FORECAST_LOG_RETENTION_DAYS,
  RESOLVE_AFTER_MS,
  computeAccuracy,
  recordForecast,
  type ForecastRecord,
} from '../../builder/model/accuracy.ts';
import type { Forecast } from '../../builder/model/forecast.ts';
import { StateSchema, type Event } from '../../builder/model/schemas.ts';

const H = 3_600_000;
const forecast = (
  p24: number | null,
  p48: number | null = p24 === null ? null : Math.min(0.99, p24 * 1.5),
): Forecast => ({
  probability_24h: p24,
  probability_48h: p48,
  base_rate_24h: p24 === null ? null : 0.2,
  base_rate_48h: p24 === null ? null : 0.35,
  trailing_base_rate_24h: p24 === null ? null : 0.5,
  trailing_base_rate_48h: p24 === null ? null : 0.6,
  trailing_90d_base_rate_24h: p24 === null ? null : 0.4,
  trailing_90d_base_rate_48h: p24 === null ? null : 0.55,
  covered_until: null,
  sample_size: p24 === null ? 3 : 30,
  model_version: 'hazard-v3',
  explanation: { code: 'probability_hazard', params: {} },
  last_global_reset_at: null,
  window_days: 365,
  announced: null,
});
const empty = (): ForecastRecord => ({ forecast_log: [], forecast_resolutions: [], last_forecast: null });

/** The builder's runs at the given instants, each publishing `f(t)`, with the events known then. */
function runAt(
  times: readonly number[],
  f: (t: number) => Forecast = () => forecast(0.3),
  events: (t: number) => Event[] = () => [],
  start = empty(),
): ForecastRecord {
  let s = start;
  for (const t of times) s = recordForecast(s, f(t), events(t), new Date(t));
  return s;
}
const every = (fromIso: string, hours: number, stepMinutes = 15) =>
  Array.from(
    { length: Math.floor((hours * 60) / stepMinutes) },
    (_, i) => Date.parse(fromIso) + i * stepMinutes * 60_000,
  );

describe('forecast log (append-only, as issued, ResetBench rules)', () => {
  it('logs at each checkpoint the forecast live at it: the last one issued at or before it', () => {
    // Runs at :05, :20, :35, :50; the checkpoint 06:00 is covered by the 05:50 run.
    const s = runAt(every('2026-06-01T00:05:00Z', 13), (t) =>
      forecast(Math.round(((t / 60_000) % 1000) / 10) / 100 + 0.01),
    );
    expect(s.forecast_log.map((e) => [e.checkpoint, e.status, e.forecast?.issued_at])).toEqual([
      ['2026-06-01T06:00:00Z', 'issued', '2026-06-01T05:50:00Z'],
      ['2026-06-01T12:00:00Z', 'issued', '2026-06-01T11:50:00Z'],
    ]);
    expect(s.forecast_log[0]!.logged_at).toBe('2026-06-01T06:05:00Z');
  });

  it('a run exactly at a checkpoint is the forecast for it', () => {
    const s = runAt(every('2026-06-01T00:00:00Z', 6.5));
    expect(s.forecast_log.map((e) => [e.checkpoint, e.forecast?.issued_at])).toEqual([
      ['2026-06-01T00:00:00Z', '2026-06-01T00:00:00Z'],
      ['2026-06-01T06:00:00Z', '2026-06-01T06:00:00Z'],
    ]);
  });

  it('publishes missed checkpoints as missed (no forecast at most 6 h old), and never a null forecast as issued', () => {
    // Runs until 01:00, then nothing until 13:10: 06:00 is covered by the 00:45 run (5 h 15 min old), 12:00 is missed.
    const s = runAt([...every('2026-06-01T00:00:00Z', 1), Date.parse('2026-06-01T13:10:00Z')]);
    expect(s.forecast_log.map((e) => [e.checkpoint, e.status])).toEqual([
      ['2026-06-01T00:00:00Z', 'issued'],
      ['2026-06-01T06:00:00Z', 'issued'],
      ['2026-06-01T12:00:00Z', 'missed'],
    ]);
    const nulls = runAt(every('2026-06-01T00:00:00Z', 7), () => forecast(null));
    expect(nulls.forecast_log.every((e) => e.status === 'missed' && e.forecast === null)).toBe(true);
  });

  it('flags a forecast more than an hour old at its checkpoint as late', () => {
    const s = runAt([
      Date.parse('2026-06-01T03:00:00Z'),
      Date.parse('2026-06-01T06:30:00Z'),
      Date.parse('2026-06-03T12:00:00Z'),
    ]);
    const a = computeAccuracy(s.forecast_log, s.forecast_resolutions, new Date('2026-06-03T12:00:00Z'));
    expect(a.forecasts.find((f) => f.horizon_hours === 24 && f.checkpoint === '2026-06-01T06:00:00Z')).toMatchObject({
      issued_at: '2026-06-01T03:00:00Z',
      age_minutes: 180,
      late: true,
    });
    // 12:00 is covered by the 06:30 run (5.5 h old, late); 18:00 by nothing within 6 h (missed).
    expect(a.summary.h24.late).toBe(2);
    expect(a.missed.map((m) => m.checkpoint)).toContain('2026-06-01T18:00:00Z');
  });

  it('never changes what it logged: every run only appends', () => {
    let s = empty();
    let before = s;
    for (const t of every('2026-06-01T00:00:00Z', 80, 60)) {
      s = recordForecast(s, forecast(((t / H) % 7) / 10 + 0.05), [testEvent('2026-06-02T10:00:00Z')], new Date(t));
      expect(s.forecast_log.slice(0, before.forecast_log.length)).toEqual(before.forecast_log);
      expect(s.forecast_resolutions.slice(0, before.forecast_resolutions.length)).toEqual(before.forecast_resolutions);
      before = s;
    }
  });

  it('drops entries past the retention', () => {
    const s = runAt([
      Date.parse('2026-01-01T00:00:00Z'),
      Date.parse('2026-01-01T00:00:00Z') + (FORECAST_LOG_RETENTION_DAYS + 1) * 24 * H + 7 * 60_000,
    ]);
    expect(s.forecast_log.every((e) => Date.parse(e.checkpoint) >= Date.parse('2026-01-02T00:00:00Z'))).toBe(true);
    // After a long outage the missed checkpoints start on the grid, inside the retention.
    expect(s.forecast_log.every((e) => Date.parse(e.checkpoint) % (6 * H) === 0)).toBe(true);
    expect(s.forecast_log.filter((e) => e.status === 'missed').length).toBeGreaterThan(400);
  });
});

describe('resolutions and corrections', () => {
  const reset = testEvent('2026-06-01T10:00:00Z');
  const t0 = Date.parse('2026-06-01T06:00:00Z');

  it('resolves a checkpoint once, after its window closed (plus the reporting delay), with the deciding event ids', () => {
    const log = runAt([t0]);
    const at = (ms: number) => recordForecast(log, forecast(0.3), [reset], new Date(ms)).forecast_resolutions;
    expect(at(t0 + 24 * H + RESOLVE_AFTER_MS - 1)).toEqual([]);
    expect(at(t0 + 24 * H + RESOLVE_AFTER_MS)).toEqual([
      {
        checkpoint: '2026-06-01T06:00:00Z',
        horizon_hours: 24,
        kind: 'resolution',
        outcome: true,
        resolved_at: '2026-06-02T12:00:00Z',
        event_ids: [reset.id],
      },
    ]);
    // Resolved once: later runs add nothing for it.
    const later = runAt(
      every('2026-06-02T12:00:00Z', 3),
      () => forecast(0.3),
      () => [reset],
      log,
    );
    expect(
      later.forecast_resolutions.filter((r) => r.checkpoint === '2026-06-01T06:00:00Z' && r.horizon_hours === 24),
    ).toHaveLength(1);
  });

  it('a record added later that flips an outcome appends a visible correction; the first resolution stays', () => {
    const resolved = runAt(
      [t0, t0 + 60 * H],
      () => forecast(0.3),
      () => [],
    );
    const r24 = resolved.forecast_resolutions.find((r) => r.horizon_hours === 24)!;
    expect(r24).toMatchObject({ kind: 'resolution', outcome: false, event_ids: [] });
    const corrected = recordForecast(resolved, forecast(0.3), [reset], new Date(t0 + 61 * H));
    expect(corrected.forecast_resolutions.slice(0, resolved.forecast_resolutions.length)).toEqual(
      resolved.forecast_resolutions,
    );
    expect(
      corrected.forecast_resolutions
        .filter((r) => r.kind === 'correction')
        .map((r) => [r.horizon_hours, r.outcome, r.event_ids]),
    ).toEqual([
      [24, true, [reset.id]],
      [48, true, [reset.id]],
    ]);
    const a = computeAccuracy(corrected.forecast_log, corrected.forecast_resolutions, new Date(t0 + 61 * H));
    const f24 = a.forecasts.find((f) => f.checkpoint === '2026-06-01T06:00:00Z' && f.horizon_hours === 24)!;
    expect(f24).toMatchObject({
      outcome: false,
      brier: expect.closeTo(0.09, 12),
      correction: { outcome: true, corrected_at: '2026-06-03T19:00:00Z', brier: expect.closeTo(0.49, 12) },
    });
    expect(a.summary.h24.corrections).toBe(1);
  });
});

describe('computeAccuracy', () => {
  it('scores with ResetBench rules: a reset exactly at the checkpoint does not count, one at t + h does', () => {
    const t = Date.parse('2026-06-01T06:00:00Z');
    const s = runAt(
      [t, t + 60 * H],
      () => forecast(0.3),
      () => [testEvent('2026-06-01T06:00:00Z'), testEvent('2026-06-03T06:00:00Z')],
    );
    const a = computeAccuracy(s.forecast_log, s.forecast_resolutions, new Date(t + 60 * H));
    const first = a.forecasts.filter((f) => f.checkpoint === '2026-06-01T06:00:00Z');
    expect(first.map((f) => [f.horizon_hours, f.outcome])).toEqual([
      [24, false],
      [48, true],
    ]);
    expect(first[0]).toMatchObject({
      probability: 0.3,
      brier: expect.closeTo(0.09, 12),
      resolved_at: '2026-06-03T18:00:00Z',
      model_version: 'hazard-v3',
    });
    expect(a.scoring.rules).toMatch(/^ResetBench rules/);
  });

  it('summarises against the all-history and the trailing climatology, with a reliability table and the missed checkpoints', () => {
    // Forecast 0.3 every checkpoint for 4 days, no reset: Brier 0.09; base 0.2 -> 0.04; trailing 0.5 -> 0.25.
    const s = runAt([...every('2026-06-01T00:00:00Z', 96, 60), Date.parse('2026-06-06T20:00:00Z')]);
    const a = computeAccuracy(s.forecast_log, s.forecast_resolutions, new Date('2026-06-06T20:00:00Z'));
    expect(a.summary.h24).toMatchObject({
      brier: expect.closeTo(0.09, 12),
      climatology_brier: expect.closeTo(0.04, 12),
      trailing_climatology_brier: expect.closeTo(0.25, 12),
    });
    expect(a.summary.h24.sample_size).toBe(a.forecasts.filter((f) => f.horizon_hours === 24).length);
    expect(a.reliability.h24[3]).toMatchObject({ count: a.summary.h24.sample_size, observed_frequency: 0 });
    // The last run before the gap (06-04 23:00) covers 06-05 00:00; the next seven checkpoints had no forecast.
    expect(a.missed.map((m) => m.checkpoint)).toEqual([
      '2026-06-06T18:00:00Z',
      '2026-06-06T12:00:00Z',
      '2026-06-06T06:00:00Z',
      '2026-06-06T00:00:00Z',
      '2026-06-05T18:00:00Z',
      '2026-06-05T12:00:00Z',
      '2026-06-05T06:00:00Z',
    ]);
  });

  it('is empty with nothing logged', () => {
    const a = computeAccuracy([], [], new Date('2026-06-01T00:00:00Z'));
    expect(a.forecasts).toEqual([]);
    expect(a.summary.h24).toMatchObject({ brier: null, sample_size: 0 });
  });
});

describe('state compatibility', () => {
  it('loads a state file with the old log format: each entry becomes the forecast for the next checkpoint', () => {
    const old = {
      forecast_log: [
        {
          checkpoint: '2026-06-01T06:00:00Z',
          issued_at: '2026-06-01T06:07:00Z',
          model_version: 'hazard-v2',
          probability_24h: 0.2,
          probability_48h: 0.3,
          base_rate_24h: 0.1,
          base_rate_48h: 0.2,
          sample_size: 12,
        },
      ],
    };
    const state = StateSchema.parse(old);
    expect(state.forecast_log).toEqual([
      {
        checkpoint: '2026-06-01T12:00:00Z',
        status: 'issued',
        logged_at: '2026-06-01T06:07:00Z',
        migrated: true,
        forecast: {
          issued_at: '2026-06-01T06:07:00Z',
          model_version: 'hazard-v2',
          probability_24h: 0.2,
          probability_48h: 0.3,
          base_rate_24h: 0.1,
          base_rate_48h: 0.2,
          trailing_base_rate_24h: null,
          trailing_base_rate_48h: null,
          trailing_90d_base_rate_24h: null,
          trailing_90d_base_rate_48h: null,
          sample_size: 12,
        },
      },
    ]);
    expect(state.forecast_resolutions).toEqual([]);
    expect(state.last_forecast).toBeNull();
  });
});
