import { beforeAll, describe, expect, it } from 'vitest';
import { trailingClimatology } from '../../builder/model/climatology.ts';
import { mergeEvents } from '../../builder/model/events.ts';
import { MODEL_VERSION } from '../../builder/model/forecast.ts';
import { computeBacktest, planRows, type BacktestResult } from '../../research/backtest.ts';
import { CANDIDATES, SHIPPED_PARAMS, family } from '../../research/candidates.ts';
import {
  brier,
  forecastAtCheckpoint,
  reliabilityTable,
  resolveCheckpoint,
  skillWithInterval,
} from '../../builder/model/accuracy.ts';
import type { Event } from '../../builder/model/schemas.ts';
import { loadCuratedData } from '../../builder/sources/archive.ts';

const H = 3_600_000;
const T = Date.parse('2026-06-01T06:00:00Z'); // a checkpoint

describe('ResetBench scoring rules, on hand-computed cases', () => {
  const issued = (hoursBeforeT: number, p = 0.3) => ({ issued_ms: T - hoursBeforeT * H, p });

  it('scores the last forecast issued at or before the checkpoint', () => {
    const log = [issued(5, 0.1), issued(1, 0.2), issued(0, 0.3), issued(-0.25, 0.9)];
    expect(forecastAtCheckpoint(log, T)?.p).toBe(0.3);
    expect(forecastAtCheckpoint(log.slice(0, 2), T)?.p).toBe(0.2);
  });

  it('a forecast issued after the checkpoint is never used for it', () => {
    expect(forecastAtCheckpoint([issued(-0.1)], T)).toBeNull();
  });

  it('a forecast at most 6 h old counts; older is a missed checkpoint', () => {
    expect(forecastAtCheckpoint([issued(6)], T)).not.toBeNull();
    expect(forecastAtCheckpoint([{ issued_ms: T - 6 * H - 1, p: 0.3 }], T)).toBeNull();
  });

  it('the outcome is a global reset in (t, t + h]: one at t is excluded, one at t + h included', () => {
    const now = T + 100 * H;
    expect(resolveCheckpoint([{ ms: T, id: 'at-t' }], T, 24, now)).toEqual({ outcome: false, event_ids: [] });
    expect(resolveCheckpoint([{ ms: T + 24 * H, id: 'at-end' }], T, 24, now)).toEqual({
      outcome: true,
      event_ids: ['at-end'],
    });
    expect(resolveCheckpoint([{ ms: T + 24 * H + 1, id: 'after' }], T, 24, now)).toEqual({
      outcome: false,
      event_ids: [],
    });
    expect(
      resolveCheckpoint(
        [
          { ms: T + 30 * H, id: 'b' },
          { ms: T + 1, id: 'a' },
        ],
        T,
        48,
        now,
      ),
    ).toEqual({ outcome: true, event_ids: ['a', 'b'] });
  });

  it('a checkpoint resolves only after its window closed', () => {
    const resets = [{ ms: T + H, id: 'r' }];
    expect(resolveCheckpoint(resets, T, 24, T + 24 * H - 1)).toBeNull();
    expect(resolveCheckpoint(resets, T, 24, T + 24 * H)).toEqual({ outcome: true, event_ids: ['r'] });
    expect(resolveCheckpoint(resets, T, 48, T + 47 * H)).toBeNull();
  });

  it('Brier and skill by hand', () => {
    // model: (0.2-0)^2 = 0.04, (0.6-1)^2 = 0.16 -> sum 0.20; baseline 0.5: 0.25 each -> 0.50; skill = 1 - 0.2/0.5 = 0.6.
    expect(brier(0.2, false)).toBeCloseTo(0.04, 12);
    expect(brier(0.6, true)).toBeCloseTo(0.16, 12);
    const s = skillWithInterval(
      [
        { p: 0.2, base: 0.5, outcome: false },
        { p: 0.6, base: 0.5, outcome: true },
      ],
      { blockLength: 1, iterations: 200, seed: 1 },
    );
    expect(s.skill).toBeCloseTo(0.6, 12);
    expect(s.lower!).toBeLessThanOrEqual(s.skill!);
    expect(s.upper!).toBeGreaterThanOrEqual(s.skill!);
  });

  it('the bootstrap interval is deterministic for a seed, and a model equal to its baseline has skill 0 [0, 0]', () => {
    const rows = Array.from({ length: 100 }, (_, i) => ({ p: 0.2 + (i % 7) / 20, base: 0.3, outcome: i % 3 === 0 }));
    const opts = { blockLength: 10, iterations: 500, seed: 42 };
    expect(skillWithInterval(rows, opts)).toEqual(skillWithInterval(rows, opts));
    expect(
      skillWithInterval(
        rows.map((r) => ({ ...r, p: r.base })),
        opts,
      ),
    ).toEqual({ skill: 0, lower: 0, upper: 0 });
  });

  it('reliability bins count forecasts and compare mean probability with observed frequency', () => {
    const bins = reliabilityTable([
      { p: 0.12, outcome: true },
      { p: 0.18, outcome: false },
      { p: 0.95, outcome: true },
      { p: 1, outcome: true },
    ]);
    expect(bins[1]).toMatchObject({ count: 2, observed_frequency: 0.5 });
    expect(bins[1]!.mean_probability).toBeCloseTo(0.15, 12);
    expect(bins[9]).toMatchObject({ count: 2, observed_frequency: 1 });
    expect(bins[0]).toMatchObject({ count: 0, mean_probability: null, observed_frequency: null });
  });

  it('the trailing climatology is the share of windows closed in the last N days that held a reset', () => {
    // asOf T; 30 days back = 120 checkpoints; 24h windows that closed by T start at T-30d .. T-24h: 117 windows.
    // One reset at T - 10 days + 1 h: the windows starting at T-11d+6h .. T-10d (4 of them) hold it.
    expect(trailingClimatology([T - 10 * 24 * H + H], T, 30, 24 * H)).toBeCloseTo(4 / 117, 12);
    expect(trailingClimatology([], T, 30, 24 * H)).toBe(0);
  });
});

describe('computeBacktest on the bundled history', () => {
  let events: Event[];
  let result: BacktestResult;
  beforeAll(async () => {
    events = mergeEvents((await loadCuratedData(new URL('../../data', import.meta.url).pathname)).events);
    result = computeBacktest(events);
  });

  it('is deterministic and says it scores by ResetBench rules', () => {
    expect(computeBacktest(events)).toEqual(result);
    expect(result.rules).toMatch(/^ResetBench rules: checkpoints 00\/06\/12\/18 UTC/);
  });

  it('ships the candidate the ship rule picks at the latest rolling origin, with its grid point', () => {
    expect(result.shipped.model).toBe(MODEL_VERSION);
    expect(result.shipped.params).toBe(family(MODEL_VERSION).describe(SHIPPED_PARAMS));
    for (const o of result.origins) {
      expect(Object.keys(o.scores).sort()).toEqual([...CANDIDATES].sort());
      expect(o.rows).toBeGreaterThan(0);
    }
    // The shipped model meets the goal, or the report says no candidate does.
    expect(result.shipped.meets_goal).toBe(result.goal[MODEL_VERSION].skill_ok && result.goal[MODEL_VERSION].window_ok);
  });

  it('reports every model against all three baselines with an interval', () => {
    expect(result.lines.length).toBe(2 * (2 + CANDIDATES.length));
    for (const l of result.lines) {
      expect(l.versus.map((v) => v.baseline)).toEqual(['climatology_all', 'trailing_30d', 'trailing_90d']);
      for (const v of l.versus) expect(v.lower! <= v.skill! && v.skill! <= v.upper!).toBe(true);
      expect(l.reliability.reduce((n, b) => n + b.count, 0)).toBe(l.forecasts);
    }
  });

  it('dates resets by announcement for the ResetBench re-score: exactly the windows an announcement-to-effective gap crosses flip', () => {
    // The reviewed rows whose event time is not the announcement: 2026-06-29 23:39:41 (effective 00:39:41),
    // 07-11 05:54:25 (effective 06:24:25), 08-25 (observed 14:30, post 18:00:04); 12-02, 07-09 and 07-21 cross no
    // checkpoint. A flip needs a checkpoint between the two times and no other reset in the window.
    expect(result.resetbench_time.flips.map((f) => `${f.checkpoint} ${f.horizon_hours}`).sort()).toEqual([
      '2026-06-29T00:00:00Z 24',
      '2026-06-30T00:00:00Z 24',
      '2026-06-30T00:00:00Z 48',
      '2026-07-11T06:00:00Z 24',
      '2026-07-11T06:00:00Z 48',
      '2026-08-24T18:00:00Z 24',
      '2026-08-25T18:00:00Z 24',
    ]);
  });

  it('scores no window that had not closed by the end of the data, and does not look ahead', () => {
    const to = new Date('2026-08-01T00:00:00Z');
    const { rows } = planRows(events, Date.parse('2026-06-01T00:00:00Z'), to.getTime());
    expect(rows.every((r) => r.at + r.h * H <= to.getTime())).toBe(true);
    const later = events.filter((e) => Date.parse(e.announced_at ?? e.effective_at ?? '') > to.getTime());
    expect(later.length).toBeGreaterThan(0);
    const without = planRows(
      events.filter((e) => !later.includes(e)),
      Date.parse('2026-06-01T00:00:00Z'),
      to.getTime(),
    ).rows;
    expect(without).toEqual(rows);
  });
});
