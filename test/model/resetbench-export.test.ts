import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { recordForecast, type ForecastRecord } from '../../builder/model/accuracy.ts';
import { emptyState } from '../../builder/model/schemas.ts';
import { createLocalStateStore } from '../../builder/state/local-store.ts';

const run = promisify(execFile);
const H = 3_600_000;
const LineSchema = z.strictObject({
  checkpoint: z.iso.datetime().refine((s) => Date.parse(s) % (6 * H) === 0, 'a 00/06/12/18 UTC checkpoint'),
  horizon_hours: z.union([z.literal(24), z.literal(48)]),
  probability: z.number().gt(0).lt(1),
  issued_at: z.iso.datetime(),
  model_version: z.string().min(1),
});

describe('npm run export:resetbench', () => {
  let dir = '';
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('writes the as-issued log as JSON Lines that a JSON parser reads line by line, one line per checkpoint and horizon', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'resetbench-'));
    const f = {
      probability_24h: 0.25, probability_48h: 0.4, base_rate_24h: 0.2, base_rate_48h: 0.3, trailing_base_rate_24h: 0.2, trailing_base_rate_48h: 0.3,
      trailing_90d_base_rate_24h: 0.2, trailing_90d_base_rate_48h: 0.3, covered_until: null, sample_size: 30, model_version: 'climatology-30d' as const,
      explanation: { code: 'probability_climatology', params: {} }, last_global_reset_at: null, window_days: 365, announced: null,
    };
    let rec: ForecastRecord = { forecast_log: [], forecast_resolutions: [], last_forecast: null };
    const t0 = Date.parse('2026-10-01T00:10:00Z');
    // Hourly runs for a day, then a 14-hour outage (a missed checkpoint), then two more runs.
    for (let t = t0; t <= t0 + 24 * H; t += H) rec = recordForecast(rec, f, [], new Date(t));
    for (const t of [t0 + 38 * H, t0 + 39 * H]) rec = recordForecast(rec, f, [], new Date(t));
    const store = createLocalStateStore(dir, { now: () => new Date(t0 + 40 * H) });
    await store.save({ ...emptyState(), ...rec }, null);

    const { stdout } = await run('node', ['--import', 'tsx', 'scripts/export-resetbench.ts', '--state-dir', dir], { cwd: path.resolve(import.meta.dirname, '../..') });
    const lines = stdout.split('\n').filter((l) => l !== '').map((l) => LineSchema.parse(JSON.parse(l)));
    const issued = rec.forecast_log.filter((e) => e.status === 'issued');
    expect(rec.forecast_log.some((e) => e.status === 'missed')).toBe(true);
    expect(lines.length).toBe(issued.length * 2);
    expect(lines[0]).toEqual({ checkpoint: issued[0]!.checkpoint, horizon_hours: 24, probability: 0.25, issued_at: issued[0]!.forecast!.issued_at, model_version: 'climatology-30d' });
    expect(lines.map((l) => l.checkpoint)).toEqual([...lines.map((l) => l.checkpoint)].sort());
  }, 60_000);
});
