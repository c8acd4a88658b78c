import { beforeAll, describe, expect, it } from 'vitest';
import { BACKTEST_CUTOFF, computeBacktest, computeReliability, computeScore, type BacktestResult } from '../../builder/model/backtest.ts';
import { mergeEvents } from '../../builder/model/events.ts';
import { HAZARD_V2_PARAMS, PRODUCTION_MODEL } from '../../builder/model/forecast.ts';
import type { Event } from '../../builder/model/schemas.ts';
import { loadCuratedData } from '../../builder/sources/archive.ts';

const dataDir = new URL('../../data', import.meta.url).pathname;
let events: Event[];
let result: BacktestResult;

beforeAll(async () => {
  events = mergeEvents((await loadCuratedData(dataDir)).events);
  result = computeBacktest(events);
});

const production = () => result.models.find((m) => m.model_version === PRODUCTION_MODEL)!;

describe('computeBacktest on the bundled history', () => {
  it('is deterministic: the same data gives the same result', () => {
    expect(computeBacktest(events)).toEqual(result);
  });

  it('beats climatology on the held-out period at 24h and 48h (positive Brier skill score)', () => {
    const test = production().test;
    expect(test.h24.forecasts).toBeGreaterThan(200);
    expect(test.h48.forecasts).toBeGreaterThan(200);
    expect(test.h24.skill!).toBeGreaterThan(0);
    expect(test.h48.skill!).toBeGreaterThan(0);
    expect(test.h24.brier!).toBeLessThan(test.h24.climatology_brier!);
    expect(test.h48.brier!).toBeLessThan(test.h48.climatology_brier!);
  });

  it('ships the hyperparameters tuned on the train split only', () => {
    expect(result.tuning?.matches_production).toBe(true);
    expect(result.tuning?.best.params).toEqual(HAZARD_V2_PARAMS);
    expect(production().params).toEqual(HAZARD_V2_PARAMS);
  });

  it('keeps train and test apart: train horizons end by the cutoff, test starts at it', () => {
    const cutoff = Date.parse(BACKTEST_CUTOFF);
    expect(result.split.cutoff).toBe(BACKTEST_CUTOFF);
    expect(Date.parse(result.split.train.last_checkpoint!) + 24 * 3_600_000).toBeLessThanOrEqual(cutoff);
    expect(Date.parse(result.split.test.first_checkpoint!)).toBeGreaterThanOrEqual(cutoff);
    expect(result.split.train.forecasts_24h).toBeGreaterThan(0);
  });

  it('reports reliability bins whose counts add up to the forecasts scored', () => {
    for (const m of result.models)
      for (const split of [m.train, m.test])
        for (const s of [split.h24, split.h48]) expect(s.reliability.reduce((n, b) => n + b.count, 0)).toBe(s.forecasts);
  });

  it('does not look ahead: records after the backtest end change no score', () => {
    const to = new Date('2026-08-01T00:00:00Z');
    const a = computeBacktest(events, { to, tune: false });
    const later = events.filter((e) => Date.parse(e.announced_at ?? '') > to.getTime());
    expect(later.length).toBeGreaterThan(0);
    const b = computeBacktest(events.filter((e) => !later.includes(e)), { to, tune: false });
    expect(b).toEqual(a);
  });
});

describe('computeScore', () => {
  it('computes Brier, climatology Brier and skill by hand', () => {
    // model: (0.2-0)^2 = 0.04, (0.6-1)^2 = 0.16 -> 0.10; climatology 0.5: 0.25 each -> 0.25; BSS = 1 - 0.1/0.25 = 0.6.
    const s = computeScore(
      [
        { at: 0, p: 0.2, base_rate: 0.5, outcome: false },
        { at: 86_400_000, p: 0.6, base_rate: 0.5, outcome: true },
      ],
      24,
    );
    expect(s.brier).toBeCloseTo(0.1, 12);
    expect(s.climatology_brier).toBeCloseTo(0.25, 12);
    expect(s.skill).toBeCloseTo(0.6, 12);
    expect(s.improvement).toBeCloseTo(0.15, 12);
    expect(s.forecasts).toBe(2);
  });

  it('is null-valued with no forecasts', () => {
    expect(computeScore([], 24)).toMatchObject({ forecasts: 0, brier: null, climatology_brier: null, skill: null });
  });

  it('bins reliability by predicted probability', () => {
    const bins = computeReliability([
      { p: 0.05, outcome: false },
      { p: 0.15, outcome: true },
      { p: 0.19, outcome: false },
      { p: 0.99, outcome: true },
    ]);
    expect(bins).toHaveLength(10);
    expect(bins[1]).toMatchObject({ count: 2, mean_predicted: expect.closeTo(0.17, 12), observed_frequency: 0.5 });
    expect(bins[9]).toMatchObject({ count: 1, observed_frequency: 1 });
  });
});
