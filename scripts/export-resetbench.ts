// Exports the as-issued forecast log (state) as ResetBench forecast snapshots: NDJSON in its schema_version 1
// (docs/resetbench.md). The public base URL names the forecast document in `source_url` and must be https.
// Usage: npm run export:resetbench [-- --state-dir .state] [--out snapshots.ndjson] [--base-url https://host] [--source-id id]
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { createLocalStateStore } from '../builder/state/local-store.ts';
import { DEFAULT_SOURCE_ID, renderSnapshots } from './resetbench-snapshots.ts';

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
