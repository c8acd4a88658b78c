// Storms: a loopback tracker that answers every run with 1,001 new `regular` records dated within the last
// 24 hours, runs 15 minutes apart with the state kept, one loopback webhook. Measures what a flooding source costs:
// deliveries the webhook received (total, distinct keys, the most any one key arrived), state.json, dist/ (bytes and
// files), api/en/history.json, run wall time and the process's peak RSS.
//
//   npx tsx bench/storm.ts [--runs 20] [--records 1001]
//
// The runs are the real pipeline (run() with the local store and sink and the HTTP fetcher and notifier) in this
// process, so peak RSS is this process's: it includes the loopback servers, which are small.
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseChannel } from '../builder/notify/channels.ts';
import { createNotifier } from '../builder/notify/send.ts';
import { createLocalSink } from '../builder/publish/local-sink.ts';
import { run } from '../builder/run.ts';
import { createHttpFetcher } from '../builder/sources/http-fetcher.ts';
import { createLocalStateStore } from '../builder/state/local-store.ts';
import { BENCH_NOW, ROOT, benchArgs, fmtMiB, fmtMs, saveResults, startLoopback, table } from './lib.ts';

const RUN_INTERVAL_MS = 15 * 60 * 1000;
const MINUTE_MS = 60 * 1000;

function option(rest: readonly string[], name: string, fallback: number): number {
  const i = rest.indexOf(`--${name}`);
  const v = i >= 0 ? Number(rest[i + 1]) : fallback;
  if (!Number.isInteger(v) || v <= 0) throw new Error(`bench/storm: --${name} wants a positive integer`);
  return v;
}

/** Run `run`'s flood: `n` records never seen before, newest first, spread over the 24 hours before `asOf`. */
export function stormRecords(runIndex: number, n: number, asOf: Date): unknown[] {
  const step = Math.floor((23 * 60 * MINUTE_MS) / n);
  return Array.from({ length: n }, (_, k) => ({
    id: `storm-${runIndex}-${k}`,
    reset_type: 'regular',
    announced_at: new Date(asOf.getTime() - MINUTE_MS - k * step).toISOString(),
    text: `Limits reset for everyone (flood ${runIndex}/${k}).`,
    source: { type: 'observed', url: `https://flood.example/posts/${runIndex}/${k}` },
  }));
}

async function treeSize(dir: string): Promise<{ bytes: number; files: number }> {
  let bytes = 0;
  let files = 0;
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    bytes += (await stat(path.join(e.parentPath, e.name))).size;
    files++;
  }
  return { bytes, files };
}

const size = async (file: string) => (await stat(file).catch(() => ({ size: 0 }))).size;

export interface StormResult {
  runs: number;
  records_per_run: number;
  deliveries: number;
  distinct_keys: number;
  max_same_key: number;
  max_per_run: number;
  deliveries_per_run: number[];
  state_bytes: number;
  dist_bytes: number;
  dist_files: number;
  history_bytes: number;
  run_ms: number[];
  max_rss_bytes: number;
  last_checks: string[];
}

export async function benchStorm(runs: number, records: number): Promise<StormResult> {
  let runIndex = 0;
  let asOf = new Date(BENCH_NOW);
  const tracker = await startLoopback((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        data: stormRecords(runIndex, records, asOf),
        pagination: { has_more: false, next_cursor: null },
        meta: { api_version: '1', generated_at: asOf.toISOString() },
      }),
    );
  });
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
  const channel = parseChannel(`${hook.url}/hook`)!;
  const perRun: number[] = [];
  const runMs: number[] = [];
  let lastChecks: string[] = [];
  try {
    for (runIndex = 0; runIndex < runs; runIndex++) {
      asOf = new Date(Date.parse(BENCH_NOW) + runIndex * RUN_INTERVAL_MS);
      const now = asOf;
      thisRun = 0;
      const started = performance.now();
      const summary = await run({
        now: () => now,
        fetcher: createHttpFetcher({ timeoutMs: 10_000, retries: 0 }),
        sources: [{ id: 'reset-tracker', kind: 'reset_tracker', url: `${tracker.url}/api/v1/resets` }],
        store: createLocalStateStore(path.join(root, 'state'), { now: () => new Date() }),
        sink: createLocalSink(path.join(root, 'dist')),
        dataDir: path.join(ROOT, 'data'),
        notify: { notifier: createNotifier([channel]), lang: 'en' },
      });
      runMs.push(performance.now() - started);
      perRun.push(thisRun);
      lastChecks = summary.sources.map((s) => `${s.id}: ${s.ok ? 'ok' : 'failed'} (${s.detail})`);
      console.error(
        `run ${runIndex + 1}/${runs}: ${fmtMs(runMs.at(-1)!)}, ${thisRun} deliveries, ${lastChecks.join('; ')}`,
      );
    }
    const dist = await treeSize(path.join(root, 'dist'));
    return {
      runs,
      records_per_run: records,
      deliveries: [...keys.values()].reduce((a, b) => a + b, 0),
      distinct_keys: keys.size,
      max_same_key: Math.max(0, ...keys.values()),
      max_per_run: Math.max(0, ...perRun),
      deliveries_per_run: perRun,
      state_bytes: await size(path.join(root, 'state', 'state.json')),
      dist_bytes: dist.bytes,
      dist_files: dist.files,
      history_bytes: await size(path.join(root, 'dist', 'api', 'en', 'history.json')),
      run_ms: runMs,
      max_rss_bytes: process.resourceUsage().maxRSS * 1024,
      last_checks: lastChecks,
    };
  } finally {
    await tracker.close();
    await hook.close();
    await rm(root, { recursive: true, force: true });
  }
}

export function stormReport(r: StormResult): string {
  const kb = (b: number) => `${(b / 1024).toFixed(b < 10 * 1024 ? 1 : 0)} KiB`;
  return [
    `Storm: ${r.runs} runs 15 min apart, ${r.records_per_run} new regular records per run, one webhook`,
    table(
      [
        'deliveries',
        'distinct keys',
        'most per key',
        'most per run',
        'state.json',
        'dist/',
        'dist files',
        'api/en/history.json',
        'last run',
        'slowest run',
        'peak RSS',
      ],
      [
        [
          r.deliveries,
          r.distinct_keys,
          r.max_same_key,
          r.max_per_run,
          kb(r.state_bytes),
          fmtMiB(r.dist_bytes),
          r.dist_files,
          kb(r.history_bytes),
          fmtMs(r.run_ms.at(-1) ?? 0),
          fmtMs(Math.max(...r.run_ms)),
          fmtMiB(r.max_rss_bytes),
        ],
      ],
    ),
    `deliveries per run: ${r.deliveries_per_run.join(', ')}`,
    `last run's checks: ${r.last_checks.join('; ')}`,
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = benchArgs();
  const result = await benchStorm(option(args.rest, 'runs', 20), option(args.rest, 'records', 1001));
  console.log(stormReport(result));
  console.log(`(raw: ${await saveResults('storm', result)})`);
}
