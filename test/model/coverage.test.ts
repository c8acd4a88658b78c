import { beforeAll, describe, expect, it } from 'vitest';
import {
  computeAccuracy,
  recordForecast,
  UNRESOLVABLE_AFTER_MS,
  type ForecastRecord,
} from '../../builder/model/accuracy.ts';
import {
  archiveCoverage,
  COVERAGE_MAX_GAP_MS,
  coveredUntil,
  extendCoverage,
  windowObserved,
  type CoverageSpan,
} from '../../builder/model/coverage.ts';
import { mergeEvents } from '../../builder/model/events.ts';
import { MAX_UNOBSERVED_MS, computeForecast } from '../../builder/model/forecast.ts';
import type { Event, SourceCheck } from '../../builder/model/schemas.ts';
import { loadCuratedData, type CuratedData } from '../../builder/sources/archive.ts';
import { testEvent } from '../helpers/events.ts';

const H = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const check = (at: number, ok: boolean, kind: SourceCheck['kind'] = 'reset_tracker'): SourceCheck => ({
  source: kind,
  kind,
  url: 'https://tracker.test',
  ok,
  http_status: ok ? 200 : 503,
  latency_ms: 10,
  items_read: ok ? 1 : 0,
  checked_at: iso(at),
  detail: { code: ok ? 'ok' : 'http_error', params: {} },
});
/** One check every 15 minutes from `from` to `to`, each ok or not. */
const checks = (from: number, to: number, ok: (t: number) => boolean, kind: SourceCheck['kind'] = 'reset_tracker') => {
  const out: SourceCheck[] = [];
  for (let t = from; t <= to; t += 15 * 60_000) out.push(check(t, ok(t), kind));
  return out;
};
/** Coverage built the way the run builds it: one run every 15 minutes, each extending the stored stretches. */
const coverageFrom = (cs: readonly SourceCheck[]) =>
  cs.reduce<CoverageSpan[]>((cov, c) => extendCoverage(cov, [c], new Date(c.checked_at)), []);

describe('coverage: when the reset sources were observed', () => {
  const t0 = Date.parse('2026-10-01T00:00:00Z');

  it('joins good checks at most 2 h apart; a longer gap or a failing source leaves a hole', () => {
    const cov = coverageFrom([...checks(t0, t0 + 10 * H, (t) => t < t0 + 3 * H || t > t0 + 6 * H)]);
    expect(cov).toEqual([
      { from: iso(t0), to: iso(t0 + 3 * H - 15 * 60_000) },
      { from: iso(t0 + 6 * H + 15 * 60_000), to: iso(t0 + 10 * H) },
    ]);
    expect(windowObserved(cov, t0, t0 + 2 * H)).toBe(true);
    expect(windowObserved(cov, t0, t0 + 8 * H)).toBe(false);
    // A gap of exactly 2 h is still one stretch; the rule is "no gap over 2 h".
    expect(coverageFrom([check(t0, true), check(t0 + COVERAGE_MAX_GAP_MS, true)])).toEqual([
      { from: iso(t0), to: iso(t0 + 2 * H) },
    ]);
  });

  it('only reset sources count: a status page that answers does not observe resets', () => {
    expect(coverageFrom(checks(t0, t0 + 4 * H, () => true, 'status_page'))).toEqual([]);
  });

  it('stays bounded: stretches past the retention are dropped', () => {
    const cov = extendCoverage(
      [{ from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' }],
      [check(t0, true)],
      new Date(t0),
    );
    expect(cov).toEqual([{ from: iso(t0), to: iso(t0) }]);
  });
});

describe('resolve only what was observed', () => {
  const day = Date.parse('2026-10-10T00:00:00Z');
  const f = {
    probability_24h: 0.3,
    probability_48h: 0.4,
    base_rate_24h: 0.2,
    base_rate_48h: 0.3,
    trailing_base_rate_24h: 0.2,
    trailing_base_rate_48h: 0.3,
    trailing_90d_base_rate_24h: 0.2,
    trailing_90d_base_rate_48h: 0.3,
    covered_until: null,
    sample_size: 30,
    model_version: 'poisson-v1',
    explanation: { code: 'probability_poisson', params: {} },
    last_global_reset_at: null,
    window_days: 365,
    announced: null,
  };
  const empty: ForecastRecord = { forecast_log: [], forecast_resolutions: [], last_forecast: null };
  /** Runs every hour from `from` to `to` with the given coverage (no resets recorded at all). */
  const runHourly = (
    from: number,
    to: number,
    coverage: (t: number) => CoverageSpan[],
    events: Event[] = [],
    model = f.model_version,
  ) => {
    let rec = empty;
    for (let t = from; t <= to; t += H)
      rec = recordForecast(rec, { ...f, model_version: model }, events, new Date(t), coverage(t));
    return rec;
  };

  it('every reset source down for the whole window: the checkpoint is not resolved, it stays pending', () => {
    // Good checks until 23:00 the day before, then every source failing for three days.
    const cs = [...checks(day - 24 * H, day - H, () => true), ...checks(day, day + 72 * H, () => false)];
    const coverage = (t: number) => coverageFrom(cs.filter((c) => Date.parse(c.checked_at) <= t));
    const rec = runHourly(day - 2 * H, day + 72 * H, coverage);
    const at = iso(day + 6 * H);
    expect(rec.forecast_log.some((e) => e.checkpoint === at && e.status === 'issued')).toBe(true);
    expect(rec.forecast_resolutions.filter((r) => r.checkpoint === at)).toEqual([]);
    const acc = computeAccuracy(rec.forecast_log, rec.forecast_resolutions, new Date(day + 72 * H));
    expect(acc.forecasts).toEqual([]);
    expect(acc.counts.resolved_24h).toBe(0);
    expect(acc.counts.pending_24h).toBeGreaterThan(0);
  });

  it('the same windows observed by good checks resolve (outcome false: no reset recorded)', () => {
    const cs = checks(day - 24 * H, day + 72 * H, () => true);
    const coverage = (t: number) => coverageFrom(cs.filter((c) => Date.parse(c.checked_at) <= t));
    const rec = runHourly(day - 2 * H, day + 72 * H, coverage);
    const at = iso(day + 6 * H);
    expect(
      rec.forecast_resolutions.filter((r) => r.checkpoint === at).map((r) => [r.horizon_hours, r.outcome]),
    ).toEqual([
      [24, false],
      [48, false],
    ]);
  });

  it('a reviewed archive that spans the window resolves it without checks', () => {
    const archive = archiveCoverage([testEvent(iso(day - 48 * H)), testEvent(iso(day + 80 * H))]);
    const rec = runHourly(day - 2 * H, day + 72 * H, () => archive, []);
    expect(rec.forecast_resolutions.some((r) => r.checkpoint === iso(day + 6 * H))).toBe(true);
  });

  it('publishes skill against each baseline with an interval once 28 checkpoints resolved, null with the reason before', () => {
    const all = [{ from: iso(day - 60 * 24 * H), to: iso(day + 40 * 24 * H) }];
    const resets = [3, 50, 51, 120, 200, 260, 330].map((hours) => testEvent(iso(day + hours * H + 7 * 60_000)));
    const short = runHourly(day - 2 * H, day + 5 * 24 * H, () => all, resets);
    const few = computeAccuracy(short.forecast_log, short.forecast_resolutions, new Date(day + 5 * 24 * H));
    expect(few.skill.trailing_90d_24h).toMatchObject({ skill: null, lower: null, upper: null });
    expect(few.skill.trailing_90d_24h.reason).toEqual({
      code: 'skill.too_few',
      params: { n: few.skill.trailing_90d_24h.n, min: 28 },
    });
    expect(few.skill.trailing_90d_24h.n).toBeLessThan(28);
    const long = runHourly(day - 2 * H, day + 16 * 24 * H, () => all, resets);
    const acc = computeAccuracy(long.forecast_log, long.forecast_resolutions, new Date(day + 16 * 24 * H));
    expect(acc.counts.resolved_24h).toBeGreaterThanOrEqual(28);
    for (const k of ['all_history_24h', 'trailing_30d_48h', 'trailing_90d_24h'] as const) {
      const s = acc.skill[k];
      expect(s.reason).toBeNull();
      expect(s.lower! <= s.skill! && s.skill! <= s.upper!).toBe(true);
    }
    // By hand: p = 0.3 against the logged 90-day base rate 0.2 on the same outcomes.
    const rows = acc.forecasts.filter((x) => x.horizon_hours === 24);
    const sum = (f: (o: boolean) => number) => rows.reduce((t, x) => t + f(x.correction?.outcome ?? x.outcome), 0);
    expect(acc.skill.trailing_90d_24h.skill).toBeCloseTo(
      1 - sum((o) => (0.3 - (o ? 1 : 0)) ** 2) / sum((o) => (0.2 - (o ? 1 : 0)) ** 2),
      12,
    );
    expect(acc.skill.trailing_90d_24h.n).toBe(rows.length);
    // poisson-v1 is none of the baselines: every comparison is scored and no baseline is named as the model's own.
    expect(acc.scoring).toMatchObject({ model_version: 'poisson-v1', model_baseline: null });
  });

  it("names the model's own baseline and leaves its forecasts out of that comparison (skill 0 by construction is no evidence)", () => {
    const all = [{ from: iso(day - 60 * 24 * H), to: iso(day + 40 * 24 * H) }];
    const resets = [3, 50, 51, 120, 200, 260, 330].map((hours) => testEvent(iso(day + hours * H + 7 * 60_000)));
    const rec = runHourly(day - 2 * H, day + 16 * 24 * H, () => all, resets, 'climatology-30d');
    const acc = computeAccuracy(rec.forecast_log, rec.forecast_resolutions, new Date(day + 16 * 24 * H));
    expect(acc.scoring).toMatchObject({ model_version: 'climatology-30d', model_baseline: 'trailing_30d' });
    const left = acc.forecasts.filter((x) => x.horizon_hours === 24).length;
    expect(acc.skill.trailing_30d_24h).toMatchObject({ skill: null, n: 0 });
    expect(acc.skill.trailing_30d_24h.reason).toEqual({
      code: 'skill.same_as_model',
      params: { n: 0, min: 28, model_version: 'climatology-30d', left_out: left },
    });
    // The other baselines are not the model: scored as usual.
    expect(acc.skill.trailing_90d_24h.reason).toBeNull();
    expect(acc.skill.all_history_48h.reason).toBeNull();
    expect(acc.skill.trailing_90d_24h.n).toBe(left);
  });

  it(`still unobserved ${UNRESOLVABLE_AFTER_MS / 86_400_000} days after it closed: unresolvable, counted and never scored`, () => {
    const end = day + 10 * 24 * H;
    const rec = runHourly(day - 2 * H, end, () => []);
    const acc = computeAccuracy(rec.forecast_log, rec.forecast_resolutions, new Date(end));
    expect(acc.counts.unresolvable_24h).toBeGreaterThan(0);
    expect(acc.counts.pending_24h).toBeGreaterThan(0);
    expect(acc.counts.resolved_24h).toBe(0);
    expect(acc.summary.h24.brier).toBeNull();
  });
});

describe('a data gap is not "no reset"', () => {
  let curated: CuratedData;
  let events: Event[];
  beforeAll(async () => {
    curated = await loadCuratedData(new URL('../../data', import.meta.url).pathname);
    events = mergeEvents(curated.events);
  });

  it('with the bundled ledger only (it ends 2026-09-12) and no tracker check since, the forecast on 2026-11-21 is null and names the gap', () => {
    const asOf = new Date('2026-11-21T12:00:00Z');
    const until = coveredUntil(archiveCoverage(curated.events), asOf.getTime());
    expect(until).toBe('2026-09-12T03:20:36Z');
    const f = computeForecast(events, asOf, { coveredUntil: until });
    expect(f.probability_24h).toBeNull();
    expect(f.probability_48h).toBeNull();
    expect(f.explanation.code).toBe('coverage_gap');
    expect(f.explanation.params).toMatchObject({
      observed_until: '2026-09-12T03:20:36Z',
      gap_days: 70.4,
      last_global_reset_at: '2026-09-12T03:20:36Z',
    });
    // sample_size stays the count of resets actually known, not a made-up one.
    expect(f.sample_size).toBe(computeForecast(events, asOf).sample_size);
  });

  it('observed up to a few hours ago, the same history gives a probability', () => {
    const asOf = new Date('2026-11-21T12:00:00Z');
    const recent = iso(asOf.getTime() - MAX_UNOBSERVED_MS + H);
    const f = computeForecast(events, asOf, { coveredUntil: recent });
    expect(f.probability_24h).not.toBeNull();
    expect(f.explanation.code).not.toBe('coverage_gap');
  });
});
