// Exports the as-issued forecast log (state) as ResetBench forecast snapshots (its docs/reference-data-schema.md,
// schema_version 1; docs/resetbench.md): NDJSON, one line per forecast as issued, the line its hourly `json_api`
// collector would have archived had it fetched /api/forecast at the instant the forecast was published. Its scorer
// picks, at each checkpoint, the latest snapshot observed at or before it and at most 6 h old: with observed_at =
// issued_at that is exactly the forecast the log holds for the checkpoint, so the scorer reads these lines unchanged
// and scores what was published. The public base URL names the forecast document in `source_url` and must be https.
// Usage: npm run export:resetbench [-- --state-dir .state] [--out snapshots.ndjson] [--base-url https://host] [--source-id id]
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { ForecastLogEntry } from '../builder/model/schemas.ts';
import { roundProbability } from '../builder/render/values.ts';
import { createLocalStateStore } from '../builder/state/local-store.ts';

const SNAPSHOT_SCHEMA_VERSION = 1;
const COLLECTOR_TYPE = 'json_api';
const COLLECTOR_VERSION = '1';
/** The id docs/resetbench.md proposes for this API in ResetBench's data/sources.json. */
const DEFAULT_SOURCE_ID = 'reset-status-api';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** JSON with object keys sorted at every level and no spaces: one spelling per value, so a hash is reproducible. */
const canonicalJson = (value: unknown) =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );

/**
 * One snapshot per distinct issued forecast (a forecast live at two checkpoints is one line), oldest first; missed
 * checkpoints and null probabilities give none (ResetBench archives no placeholder). Probabilities are the ones the
 * document published (rounded to 4 decimals). raw_sha256 is the SHA-256 of the logged forecast record as canonical
 * JSON (the log keeps the forecast, not the bytes a fetch returned); snapshot_id the first 24 hex digits of the
 * SHA-256 of {forecasts, observed_at, raw_sha256, source_id, window_forecast: null} as canonical JSON.
 */
function renderSnapshots(log: readonly ForecastLogEntry[], opts: { sourceId?: string; publicBaseUrl: string }): string {
  const sourceId = opts.sourceId ?? DEFAULT_SOURCE_ID;
  const seen = new Set<string>();
  const byCheckpoint = [...log].sort((a, b) => Date.parse(a.checkpoint) - Date.parse(b.checkpoint));
  const lines = byCheckpoint.flatMap((e) => {
    const f = e.forecast;
    if (e.status !== 'issued' || f === null || seen.has(f.issued_at)) return [];
    const forecasts: { '24h'?: number; '48h'?: number } = {};
    const p24 = roundProbability(f.probability_24h);
    const p48 = roundProbability(f.probability_48h);
    if (p24 !== null) forecasts['24h'] = p24;
    if (p48 !== null) forecasts['48h'] = p48;
    if (Object.keys(forecasts).length === 0) return [];
    seen.add(f.issued_at);
    const raw_sha256 = sha256(canonicalJson(f));
    const snapshot_id = sha256(
      canonicalJson({ source_id: sourceId, observed_at: f.issued_at, raw_sha256, forecasts, window_forecast: null }),
    ).slice(0, 24);
    return [
      {
        schema_version: SNAPSHOT_SCHEMA_VERSION,
        snapshot_id,
        source_id: sourceId,
        observed_at: f.issued_at,
        source_updated_at: f.issued_at,
        forecasts,
        // /api/forecast: English, the default language, under the public base URL.
        source_url: `${opts.publicBaseUrl.replace(/\/+$/, '')}/api/forecast`,
        collector_type: COLLECTOR_TYPE,
        collector_version: COLLECTOR_VERSION,
        raw_sha256,
      },
    ];
  });
  lines.sort((a, b) => Date.parse(a.observed_at) - Date.parse(b.observed_at));
  return lines.map((l) => canonicalJson(l) + '\n').join('');
}

const { values } = parseArgs({
  options: {
    'state-dir': { type: 'string', default: '.state' },
    out: { type: 'string' },
    'base-url': { type: 'string', default: process.env.RESET_PUBLIC_BASE_URL ?? '' },
    'source-id': { type: 'string', default: DEFAULT_SOURCE_ID },
  },
});
const base = values['base-url'];
if (!/^https:\/\/[^/?#@\s]+/.test(base)) {
  console.error(
    'export:resetbench: set RESET_PUBLIC_BASE_URL (or --base-url) to the public https base URL; ResetBench accepts only https sources',
  );
  process.exit(2);
}
const store = createLocalStateStore(values['state-dir'], { now: () => new Date() });
const { state } = await store.load();
const text = renderSnapshots(state.forecast_log, { sourceId: values['source-id'], publicBaseUrl: base });
if (values.out === undefined) process.stdout.write(text);
else {
  await writeFile(values.out, text);
  console.error(`wrote ${text.split('\n').filter(Boolean).length} snapshots to ${values.out}`);
}
