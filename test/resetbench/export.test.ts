// npm run export:resetbench against ResetBench's documented snapshot schema (docs/reference-data-schema.md of
// codex-reset-benchmark, schema_version 1) and its documented checkpoint rule, on a real state file.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { recordForecast, type ForecastRecord } from '../../builder/model/accuracy.ts';
import type { Forecast } from '../../builder/model/forecast.ts';
import { emptyState } from '../../builder/model/schemas.ts';
import { createLocalStateStore } from '../../builder/state/local-store.ts';

const run = promisify(execFile);
const H = 3_600_000;
const ROOT = path.resolve(import.meta.dirname, '../..');
/** A timestamp ResetBench parses: ISO 8601 with a zone (it rejects naive times). */
const zoned = z
  .string()
  .refine((s) => /(Z|[+-]\d\d:\d\d)$/.test(s) && Number.isFinite(Date.parse(s)), 'an ISO 8601 time with a zone');
const fraction = z.number().min(0).max(1);
/** The documented snapshot, exactly: these ten keys, no others (no window_forecast for a fixed-horizon source). */
const SnapshotSchema = z.strictObject({
  schema_version: z.literal(1),
  snapshot_id: z.string().regex(/^[0-9a-f]{24}$/),
  source_id: z.string().min(1),
  observed_at: zoned,
  source_updated_at: zoned,
  forecasts: z
    .strictObject({ '5h': fraction.optional(), '24h': fraction.optional(), '48h': fraction.optional() })
    .refine((f) => Object.keys(f).length > 0, 'at least one horizon'),
  source_url: z.string().startsWith('https://'),
  collector_type: z.literal('json_api'),
  collector_version: z.string().min(1),
  raw_sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
type Snapshot = z.infer<typeof SnapshotSchema>;

/** ResetBench's checkpoint rule: the latest snapshot with the horizon observed at or before t, at most 6 h old. */
function selectSnapshot(snaps: readonly Snapshot[], t: number, horizon: '24h' | '48h'): Snapshot | null {
  const eligible = snaps.filter(
    (s) =>
      s.forecasts[horizon] !== undefined && Date.parse(s.observed_at) <= t && t - Date.parse(s.observed_at) <= 6 * H,
  );
  return eligible.sort((a, b) => Date.parse(a.observed_at) - Date.parse(b.observed_at)).at(-1) ?? null;
}

const forecast = (p24: number, p48: number): Forecast => ({
  probability_24h: p24,
  probability_48h: p48,
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
});

describe('npm run export:resetbench', () => {
  let dir = '';
  let rec: ForecastRecord = { forecast_log: [], forecast_resolutions: [], last_forecast: null };
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'resetbench-'));
    const t0 = Date.parse('2026-10-01T00:10:00Z');
    // Hourly runs for a day with a changing forecast, then a 14-hour outage (a missed checkpoint), then two more runs.
    for (let t = t0, k = 0; t <= t0 + 24 * H; t += H, k++)
      rec = recordForecast(rec, forecast(0.1 + k / 100 + 0.000012345, 0.3 + k / 100), [], new Date(t));
    for (const t of [t0 + 38 * H, t0 + 39 * H]) rec = recordForecast(rec, forecast(0.25, 0.4), [], new Date(t));
    await createLocalStateStore(dir, { now: () => new Date(t0 + 40 * H) }).save({ ...emptyState(), ...rec }, null);
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const exportLines = async (extra: string[] = []) => {
    const { stdout } = await run(
      'node',
      [
        '--import',
        'tsx',
        'scripts/export-resetbench.ts',
        '--state-dir',
        dir,
        '--base-url',
        'https://api.example.test/',
        ...extra,
      ],
      { cwd: ROOT },
    );
    return stdout.split('\n').filter((l) => l !== '');
  };

  it("writes NDJSON in ResetBench's snapshot schema, one line per as-issued forecast, that its checkpoint rule scores as logged", async () => {
    const raw = await exportLines();
    const snaps = raw.map((l) => SnapshotSchema.parse(JSON.parse(l)));
    const issued = rec.forecast_log.filter((e) => e.status === 'issued');
    expect(rec.forecast_log.some((e) => e.status === 'missed')).toBe(true);
    expect(snaps.length).toBe(new Set(issued.map((e) => e.forecast!.issued_at)).size);
    expect(new Set(snaps.map((s) => s.snapshot_id)).size).toBe(snaps.length);
    expect(snaps.map((s) => s.observed_at)).toEqual([...snaps.map((s) => s.observed_at)].sort());
    for (const s of snaps) {
      expect(s).toMatchObject({
        source_id: 'reset-status-api',
        source_url: 'https://api.example.test/api/forecast',
        collector_version: '1',
      });
      expect(s.source_updated_at).toBe(s.observed_at);
    }
    // Every logged checkpoint: the scorer's pick is the logged forecast, as the document published it (4 decimals).
    for (const e of rec.forecast_log) {
      const t = Date.parse(e.checkpoint);
      for (const h of ['24h', '48h'] as const) {
        const pick = selectSnapshot(snaps, t, h);
        if (e.status === 'missed') expect(pick).toBeNull();
        else {
          const p = h === '24h' ? e.forecast!.probability_24h! : e.forecast!.probability_48h!;
          expect(pick?.observed_at).toBe(e.forecast!.issued_at);
          expect(pick!.forecasts[h]).toBe(Math.round(p * 1e4) / 1e4);
        }
      }
    }
    // Deterministic: the same log gives the same bytes.
    expect(await exportLines()).toEqual(raw);
    expect(await exportLines(['--source-id', 'other'])).not.toEqual(raw);
  }, 60_000);

  it('refuses to run without an https public base URL (ResetBench accepts only https sources)', async () => {
    const err = await run(
      'node',
      ['--import', 'tsx', 'scripts/export-resetbench.ts', '--state-dir', dir, '--base-url', 'http://127.0.0.1:8080'],
      { cwd: ROOT },
    ).catch((e: { code: number; stderr: string }) => e);
    expect(err).toMatchObject({ code: 2 });
    expect((err as { stderr: string }).stderr).toMatch(/RESET_PUBLIC_BASE_URL/);
  }, 60_000);
});
