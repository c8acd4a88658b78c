// Exports the as-issued forecast log (state) as ResetBench lines (JSON Lines; format in docs/forecast.md).
// Usage: npm run export:resetbench [-- --state-dir .state] [--out resetbench.jsonl]
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { renderResetBenchExport } from '../builder/model/resetbench.ts';
import { createLocalStateStore } from '../builder/state/local-store.ts';

const { values } = parseArgs({ options: { 'state-dir': { type: 'string', default: '.state' }, out: { type: 'string' } } });
const store = createLocalStateStore(values['state-dir'], { now: () => new Date() });
const { state } = await store.load();
const text = renderResetBenchExport(state.forecast_log);
if (values.out === undefined) process.stdout.write(text);
else {
  await writeFile(values.out, text);
  console.error(`wrote ${text.split('\n').filter(Boolean).length} lines to ${values.out}`);
}
