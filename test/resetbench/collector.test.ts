// ResetBench's `json_api` collector rules (its data/sources.json and collector documentation), implemented here and
// applied, with the entry docs/resetbench.md proposes, to /api/forecast as a real offline build writes it.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORECAST_STALE_AFTER_MS } from '../../builder/model/forecast.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

interface SourceEntry {
  id: string;
  forecast_url: string;
  collector: {
    type: string;
    probabilities: Record<string, { path: string; unit: string }>;
    source_updated_path?: string;
    max_source_age_hours?: number;
  };
}

type Collected =
  { ok: true; forecasts: Record<string, number>; source_updated_at: string | null } | { ok: false; error: string };

/** A dotted path into parsed JSON; a missing key is an error (a present null is returned as null). */
function dotted(payload: unknown, p: string): unknown {
  let cur = payload;
  for (const part of p.split('.')) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur) || !Object.hasOwn(cur, part))
      throw new Error(`missing JSON path: ${p}`);
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** A value as a probability in the rule's unit: a number (or numeric string) in [0, 1] after conversion; null, booleans and the rest are errors. */
function probability(value: unknown, unit: string): number {
  if (typeof value === 'boolean' || value === null || (typeof value !== 'number' && typeof value !== 'string'))
    throw new Error(`invalid probability value: ${JSON.stringify(value)}`);
  let x = Number(value);
  if (!Number.isFinite(x)) throw new Error(`invalid probability value: ${JSON.stringify(value)}`);
  if (unit === 'percent' || (unit === 'percent_or_fraction' && x > 1)) x /= 100;
  else if (unit !== 'fraction' && unit !== 'percent_or_fraction')
    throw new Error(`unsupported probability unit: ${unit}`);
  if (x < 0 || x > 1) throw new Error(`probability outside [0, 1]: ${x}`);
  return x;
}

/** One hourly collection of `raw` at `now`: the snapshot's forecasts, or the error ResetBench records for the hour. */
function collect(entry: SourceEntry, raw: string, now: Date): Collected {
  try {
    const payload: unknown = JSON.parse(raw);
    const forecasts: Record<string, number> = {};
    for (const [h, rule] of Object.entries(entry.collector.probabilities))
      forecasts[h] = probability(dotted(payload, rule.path), rule.unit);
    let updated: string | null = null;
    if (entry.collector.source_updated_path !== undefined) {
      const v = dotted(payload, entry.collector.source_updated_path);
      if (v !== null) {
        if (typeof v !== 'string' || !/(Z|[+-]\d\d:\d\d)$/.test(v) || !Number.isFinite(Date.parse(v)))
          throw new Error('timestamp must include timezone');
        updated = v;
      }
    }
    if (Object.keys(forecasts).length === 0) throw new Error('no forecast values were extracted');
    const maxAge = entry.collector.max_source_age_hours;
    if (maxAge && updated !== null && (now.getTime() - Date.parse(updated)) / 3_600_000 > maxAge)
      throw new Error('source output is stale');
    return { ok: true, forecasts, source_updated_at: updated };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

async function proposedEntry(): Promise<SourceEntry> {
  const doc = await readFile(path.join(ROOT, 'docs/resetbench.md'), 'utf8');
  const m = /<!-- resetbench:source -->\n```json\n([\s\S]*?)\n```\n<!-- \/resetbench:source -->/.exec(doc);
  if (m === null) throw new Error('docs/resetbench.md has no resetbench:source block');
  return JSON.parse(m[1]!) as SourceEntry;
}

/** Builds offline (every source disabled) at `now` and returns api/en/forecast.json, the file /api/forecast serves. */
async function builtForecast(dir: string, now: string): Promise<string> {
  const env = {
    ...process.env,
    RESET_STATUS_PAGE_URL: '',
    RESET_UPSTREAM_URL: '',
    RESET_TIMELINE_URL: '',
    RESET_POST_EMBED_URL: '',
    RESET_SIGNAL_FEEDS: '',
    RESET_UPSTREAM_STATUS_URL: '',
  };
  const out = path.join(dir, now.replace(/[^0-9]/g, ''));
  await run(
    'node',
    [
      '--import',
      'tsx',
      'builder/main.ts',
      '--now',
      now,
      '--out',
      path.join(out, 'dist'),
      '--state-dir',
      path.join(out, 'state'),
    ],
    { cwd: ROOT, env },
  );
  return readFile(path.join(out, 'dist', 'api', 'en', 'forecast.json'), 'utf8');
}

describe("ResetBench's json_api collector on the built /api/forecast", () => {
  let dir = '';
  let entry: SourceEntry;
  let fresh = '';
  let withheld = '';
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'resetbench-collect-'));
    entry = await proposedEntry();
    // 2026-09-12T06:00Z: under 6 h after the bundled ledger's last record, so a forecast is published.
    fresh = await builtForecast(dir, '2026-09-12T06:00:00Z');
    // 2026-11-21T12:00Z: the sources unobserved for 70 days, so the forecast is withheld (null).
    withheld = await builtForecast(dir, '2026-11-21T12:00:00Z');
  }, 120_000);
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('the proposed entry is a json_api source with fraction paths, issued_at and a one-hour age limit', () => {
    expect(entry.collector).toMatchObject({
      type: 'json_api',
      source_updated_path: 'issued_at',
      max_source_age_hours: 1,
    });
    expect(entry.collector.probabilities).toEqual({
      '24h': { path: 'probability_24h', unit: 'fraction' },
      '48h': { path: 'probability_48h', unit: 'fraction' },
    });
    expect(entry.forecast_url).toMatch(/^https:\/\/API\/api\/forecast$/);
  });

  it('collects a fresh forecast with exactly its published probabilities', () => {
    const doc = JSON.parse(fresh) as { probability_24h: number; probability_48h: number; issued_at: string };
    expect(doc.probability_24h).toBeGreaterThan(0);
    const got = collect(entry, fresh, new Date(Date.parse(doc.issued_at) + 17 * 60_000));
    expect(got).toEqual({
      ok: true,
      forecasts: { '24h': doc.probability_24h, '48h': doc.probability_48h },
      source_updated_at: doc.issued_at,
    });
  });

  it('refuses the same document as stale once it is over an hour old (stopped builds are never archived as fresh)', () => {
    const issued = Date.parse((JSON.parse(fresh) as { issued_at: string }).issued_at);
    expect(collect(entry, fresh, new Date(issued + 60 * 60_000)).ok).toBe(true);
    expect(collect(entry, fresh, new Date(issued + 61 * 60_000))).toEqual({
      ok: false,
      error: 'source output is stale',
    });
  });

  it("the forecast's own stale_after is never past the age the collector accepts, and its expired forecast is an error, never a 0 %", async () => {
    const doc = JSON.parse(fresh) as { issued_at: string; meta: { stale_after: string } };
    const holds = Date.parse(doc.meta.stale_after) - Date.parse(doc.issued_at);
    expect(holds).toBe(FORECAST_STALE_AFTER_MS);
    expect(holds).toBeLessThanOrEqual(entry.collector.max_source_age_hours! * 3_600_000);
    // What the edge serves from stale_after on, beside the live document in the same build.
    const expired = await readFile(
      path.join(dir, '20260912060000', 'dist', 'api', 'en', 'unknown', 'forecast.json'),
      'utf8',
    );
    const got = collect(entry, expired, new Date(Date.parse(doc.meta.stale_after)));
    expect(got).toEqual({ ok: false, error: 'invalid probability value: null' });
  });

  it('a withheld forecast (null probabilities) is an error for the hour, never a 0 %', () => {
    const doc = JSON.parse(withheld) as { probability_24h: null; issued_at: string };
    expect(doc.probability_24h).toBeNull();
    const got = collect(entry, withheld, new Date(Date.parse(doc.issued_at) + 60_000));
    expect(got).toEqual({ ok: false, error: 'invalid probability value: null' });
  });
});
