// Storms: a loopback tracker that answers every run with 1,001 new `regular` records dated within the last
// 24 hours, runs 15 minutes apart with the state kept, one loopback webhook. Measures what a flooding source costs:
// deliveries the webhook received (total, distinct keys, the most any one key arrived), state.json, dist/ (bytes and
// files), api/en/history.json, run wall time and the process's peak RSS.
//
//   npx tsx bench/storm.ts [--runs 20] [--records 1001] [--quick: 5 runs]
//
// The runs are the real pipeline (run() with the local store and sink and the HTTP fetcher and notifier) in this
// process, so peak RSS is this process's: it includes the loopback servers, which are small.
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseChannel } from '../builder/notify/channels.ts';
import { createNotifier } from '../builder/notify/send.ts';
import { createLocalSink } from '../builder/publish/local-sink.ts';
import { run } from '../builder/run.ts';
import { createHttpFetcher } from '../builder/sources/http-fetcher.ts';
import { createLocalStateStore } from '../builder/state/local-store.ts';
import { startLoopback, trackerHandler } from '../test/helpers/build.ts';
import { BENCH_NOW, ROOT, fmtMs } from './lib.ts';

const RUN_INTERVAL_MS = 15 * 60 * 1000;
const MINUTE_MS = 60 * 1000;

const { values } = parseArgs({
  options: { runs: { type: 'string' }, records: { type: 'string', default: '1001' }, quick: { type: 'boolean' } },
});
const runs = Number(values.runs ?? (values.quick ? 5 : 20));
const records = Number(values.records);
if (!Number.isInteger(runs) || runs <= 0 || !Number.isInteger(records) || records <= 0)
  throw new Error('bench/storm: --runs and --records want positive integers');

/** Run `runIndex`'s flood: `records` never seen before, newest first, spread over the 24 hours before `asOf`. */
function stormRecords(runIndex: number, asOf: Date): unknown[] {
  const step = Math.floor((23 * 60 * MINUTE_MS) / records);
  return Array.from({ length: records }, (_, k) => ({
    id: `storm-${runIndex}-${k}`,
    reset_type: 'regular',
    announced_at: new Date(asOf.getTime() - MINUTE_MS - k * step).toISOString(),
    text: `Limits reset for everyone (flood ${runIndex}/${k}).`,
    source: { type: 'observed', url: `https://flood.example/posts/${runIndex}/${k}` },
  }));
}

let runIndex = 0;
let asOf = new Date(BENCH_NOW);
const tracker = await startLoopback(trackerHandler(() => stormRecords(runIndex, asOf)));
const keys = new Map<string, number>();
let thisRun = 0;
const hook = await startLoopback((req, res) => {
  const key = String(req.headers['idempotency-key'] ?? '');
  keys.set(key, (keys.get(key) ?? 0) + 1);
  thisRun++;
  req.resume();
  req.on('end', () => {
    res.writeHead(204);
    res.end();
  });
});
const root = await mkdtemp(path.join(tmpdir(), 'rsa-bench-storm-'));
const KiB = (b: number) => `${(b / 1024).toFixed(b < 10 * 1024 ? 1 : 0)} KiB`;
const MiB = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MiB`;
const size = async (file: string) => (await stat(file).catch(() => ({ size: 0 }))).size;
try {
  const perRun: number[] = [];
  const runMs: number[] = [];
  let checks: string[] = [];
  for (runIndex = 0; runIndex < runs; runIndex++) {
    const now = (asOf = new Date(Date.parse(BENCH_NOW) + runIndex * RUN_INTERVAL_MS));
    thisRun = 0;
    const started = performance.now();
    const summary = await run({
      now: () => now,
      fetcher: createHttpFetcher({ timeoutMs: 10_000, retries: 0 }),
      sources: [{ id: 'reset-tracker', kind: 'reset_tracker', url: `${tracker.url}/api/v1/resets` }],
      store: createLocalStateStore(path.join(root, 'state'), { now: () => new Date() }),
      sink: createLocalSink(path.join(root, 'dist')),
      dataDir: path.join(ROOT, 'data'),
      notify: { notifier: createNotifier([parseChannel(`${hook.url}/hook`)!]), lang: 'en' },
    });
    runMs.push(performance.now() - started);
    perRun.push(thisRun);
    checks = summary.sources.map((s) => `${s.id}: ${s.ok ? 'ok' : 'failed'} (${s.detail})`);
    console.error(`run ${runIndex + 1}/${runs}: ${fmtMs(runMs.at(-1)!)}, ${thisRun} deliveries, ${checks.join('; ')}`);
  }
  let distBytes = 0;
  let distFiles = 0;
  for (const e of await readdir(path.join(root, 'dist'), { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    distBytes += (await stat(path.join(e.parentPath, e.name))).size;
    distFiles++;
  }
  const rows: [string, string | number][] = [
    ['deliveries (distinct keys)', `${[...keys.values()].reduce((a, b) => a + b, 0)} (${keys.size})`],
    ['most deliveries in one run / of one key', `${Math.max(0, ...perRun)} / ${Math.max(0, ...keys.values())}`],
    ['`state.json`', KiB(await size(path.join(root, 'state', 'state.json')))],
    ['`dist/`', `${MiB(distBytes)} in ${distFiles} files`],
    ['`api/en/history.json`', KiB(await size(path.join(root, 'dist', 'api', 'en', 'history.json')))],
    ['run time, last / slowest', `${fmtMs(runMs.at(-1)!)} / ${fmtMs(Math.max(...runMs))}`],
    ['peak RSS', MiB(process.resourceUsage().maxRSS * 1024)],
  ];
  console.log(`Storm: ${runs} runs 15 min apart, ${records} new regular records per run, one webhook\n`);
  console.log(`| | ${records} new records per run |\n|---|---|`);
  for (const [k, v] of rows) console.log(`| ${k} | ${v} |`);
  console.log(`\ndeliveries per run: ${perRun.join(', ')}\nlast run's checks: ${checks.join('; ')}`);
} finally {
  await tracker.close();
  await hook.close();
  await rm(root, { recursive: true, force: true });
}
