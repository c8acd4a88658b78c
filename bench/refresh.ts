// Benchmark 1: one refresh tick with today's data/ and three loopback sources.
//  - end to end: the real `builder/main.ts` process (start, import, fetch, state, compute, render, write, exit),
//    wall time and peak RSS, cold (empty state and dist) and warm (the next tick over the same dirs);
//  - by stage: run() in a child process with the onStage hook, plus the time spent starting up and importing.
//
//   npx tsx bench/refresh.ts [--quick]
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DocumentStream } from '../builder/publish/sink.ts';
import type { OutputDocument } from '../builder/render/output.ts';
import {
  BENCH_NOW,
  ROOT,
  benchArgs,
  fmtMiB,
  fmtMs,
  lastJson,
  median,
  runChild,
  saveResults,
  startSources,
  table,
} from './lib.ts';

export const REFRESH_TARGET_MS = 2_000;
const STAGES = ['startup', 'lock', 'fetch', 'state', 'compute', 'render', 'publish'] as const;

interface ChildReport {
  stages: Record<string, number>;
  /** CPU (user + sys, every thread of the process) spent in each stage, in ms: what bench/startup.ts budgets. */
  stages_cpu: Record<string, number>;
  max_rss_bytes: number;
  documents: number;
  /**
   * Main-thread time spent producing the documents the sink pulls from the stream: since streaming, run() renders the
   * event documents and history pages as the sink takes them, inside the publish stage. Synchronous work, so its wall
   * time is its CPU time on that thread.
   */
  pulled_render_ms: number;
}

/** The documents of `docs` as a stream that adds the time spent producing each one to `spent.ms`; arrays as they are. */
function timedPulls(docs: DocumentStream, spent: { ms: number }): DocumentStream {
  if (Array.isArray(docs) || !(Symbol.iterator in docs)) return docs;
  const source = docs as Iterable<OutputDocument>;
  return {
    [Symbol.iterator]: () => {
      const it = source[Symbol.iterator]();
      return {
        next: () => {
          const t = performance.now();
          const r = it.next();
          spent.ms += performance.now() - t;
          return r;
        },
      };
    },
  };
}

/** Child: one run() with real dependencies, reporting each stage; `startup` is process start to run(). */
async function child(outDir: string, stateDir: string, dataDir: string): Promise<void> {
  const { run } = await import('../builder/run.ts');
  const { createHttpFetcher } = await import('../builder/sources/http-fetcher.ts');
  const { sourceConfigsFromEnv } = await import('../builder/sources/config.ts');
  const { createLocalStateStore } = await import('../builder/state/local-store.ts');
  const { createLocalSink } = await import('../builder/publish/local-sink.ts');
  const sink = createLocalSink(outDir);
  const pulled = { ms: 0 };
  const stages: Record<string, number> = { startup: performance.now() };
  const stagesCpu: Record<string, number> = {};
  let cpuMark = process.cpuUsage();
  const summary = await run({
    now: () => new Date(BENCH_NOW),
    fetcher: createHttpFetcher(),
    sources: sourceConfigsFromEnv(process.env),
    store: createLocalStateStore(stateDir, { now: () => new Date() }),
    sink: { name: sink.name, publish: (docs, o) => sink.publish(timedPulls(docs, pulled), o) },
    dataDir,
    onStage: (name, ms) => {
      stages[name] = ms;
      const cpu = process.cpuUsage(cpuMark);
      stagesCpu[name] = (cpu.user + cpu.system) / 1000;
      cpuMark = process.cpuUsage();
    },
  });
  if (summary.sources.some((s) => !s.ok))
    throw new Error(`a loopback source failed: ${JSON.stringify(summary.sources)}`);
  const report: ChildReport = {
    stages,
    stages_cpu: stagesCpu,
    max_rss_bytes: process.resourceUsage().maxRSS * 1024,
    documents: summary.documents,
    pulled_render_ms: pulled.ms,
  };
  console.log(JSON.stringify(report));
}

export interface RefreshResult {
  runs: number;
  e2e: Record<string, { wall_ms: number[]; max_rss_bytes: number[] }>;
  stages: Record<string, number[]>;
  documents: number;
  target_ms: number;
}

export async function benchRefresh(opts: { quick: boolean }): Promise<{ result: RefreshResult; report: string }> {
  const runs = opts.quick ? 3 : 7;
  const sources = await startSources();
  const root = await mkdtemp(path.join(tmpdir(), 'rsa-bench-refresh-'));
  const data = path.join(ROOT, 'data');
  const e2e: RefreshResult['e2e'] = {};
  const record = (name: string, wall: number, rss: number) => {
    const r = (e2e[name] ??= { wall_ms: [], max_rss_bytes: [] });
    r.wall_ms.push(wall);
    r.max_rss_bytes.push(rss);
  };
  const stages: Record<string, number[]> = {};
  let documents = 0;
  try {
    const rssFile = path.join(root, 'rss.json');
    // The tracker's status endpoint (derived from its URL) has no loopback fixture: off, or every tick reports it failed.
    const env = { ...sources.env, RESET_UPSTREAM_STATUS_URL: '', RSA_BENCH_RSS_FILE: rssFile };
    const main = ['--import', 'tsx', '--import', './bench/rss-probe.ts', 'builder/main.ts'];
    // Interleaved, so drift on a shared machine hits every variant alike.
    for (let i = 0; i < runs; i++) {
      const dir = path.join(root, `run-${i}`);
      const args = [
        '--now',
        BENCH_NOW,
        '--out',
        path.join(dir, 'dist'),
        '--state-dir',
        path.join(dir, 'state'),
        '--data-dir',
        data,
      ];
      for (const [name, cmd, argv] of [
        ['node -e "" (process floor)', process.execPath, ['-e', '']],
        [
          'node --import tsx (loader floor)',
          process.execPath,
          ['--import', 'tsx', '--import', './bench/rss-probe.ts', '-e', ''],
        ],
        ['node --import tsx builder/main.ts, cold', process.execPath, [...main, ...args]],
        ['node --import tsx builder/main.ts, warm (next tick)', process.execPath, [...main, ...args]],
        ['npm run build, warm', 'npm', ['run', '--silent', 'build', '--', ...args]],
        [
          'npx tsx builder/main.ts, warm (the tsx CLI: two processes)',
          'npx',
          ['tsx', '--import', './bench/rss-probe.ts', 'builder/main.ts', ...args],
        ],
      ] as const) {
        await rm(rssFile, { force: true });
        const r = await runChild(cmd, argv, { env });
        if (r.code !== 0) throw new Error(`${name} exited ${r.code}\n${r.stderr.slice(-2000)}`);
        if (name.includes('main.ts') && !/sources: 3 ok, 0 failed/.test(r.stdout))
          throw new Error(`${name}: sources did not all succeed\n${r.stdout}`);
        // npm's own process would write the probe's file last, so `npm run build` is timed without it.
        const rss =
          name.startsWith('node -e') || name.startsWith('npm ')
            ? NaN
            : (JSON.parse(await readFile(rssFile, 'utf8')) as { max_rss_bytes: number }).max_rss_bytes;
        record(name, r.wallMs, rss);
      }
      const c = await runChild(
        process.execPath,
        [
          '--import',
          'tsx',
          'bench/refresh.ts',
          '--child',
          path.join(dir, 'dist-stages'),
          path.join(dir, 'state-stages'),
          data,
        ],
        { env },
      );
      if (c.code !== 0) throw new Error(`stage child exited ${c.code}\n${c.stderr.slice(-2000)}`);
      const rep = lastJson<ChildReport>(c.stdout);
      documents = rep.documents;
      for (const [k, v] of Object.entries(rep.stages)) (stages[k] ??= []).push(v);
    }
  } finally {
    await sources.close();
    await rm(root, { recursive: true, force: true });
  }

  const result: RefreshResult = { runs, e2e, stages, documents, target_ms: REFRESH_TARGET_MS };
  const rows = Object.entries(e2e).map(([name, r]) => [
    name,
    fmtMs(median(r.wall_ms)),
    `${fmtMs(Math.min(...r.wall_ms))}–${fmtMs(Math.max(...r.wall_ms))}`,
    Number.isNaN(median(r.max_rss_bytes)) ? '–' : fmtMiB(median(r.max_rss_bytes)),
  ]);
  const cold = median(e2e['node --import tsx builder/main.ts, cold']!.wall_ms);
  const warm = median(e2e['node --import tsx builder/main.ts, warm (next tick)']!.wall_ms);
  const npm = median(e2e['npm run build, warm']!.wall_ms);
  const stageRows = STAGES.filter((s) => stages[s]).map((s) => [
    s,
    fmtMs(median(stages[s]!)),
    `${fmtMs(Math.min(...stages[s]!))}–${fmtMs(Math.max(...stages[s]!))}`,
  ]);
  const report = [
    `### Refresh tick (data/: ${documents} documents, 3 loopback sources), ${runs} runs, medians`,
    '',
    table(['process', 'wall (median)', 'range', 'peak RSS (median)'], rows),
    '',
    `Target: a whole refresh process under ${fmtMs(REFRESH_TARGET_MS)}: cold ${fmtMs(cold)}, warm ${fmtMs(warm)}, via npm run build ${fmtMs(npm)} -> ${Math.max(cold, warm, npm) < REFRESH_TARGET_MS ? 'met' : 'MISSED'}`,
    '',
    'Stages of run() in a child process (startup = process start to the first line of run(), imports included):',
    '',
    table(['stage', 'median', 'range'], stageRows),
  ].join('\n');
  return { result, report };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = benchArgs();
  if (args.rest[0] === '--child') {
    const [, outDir, stateDir, dataDir] = args.rest as [string, string, string, string];
    await child(outDir, stateDir, dataDir);
  } else {
    const { result, report } = await benchRefresh(args);
    console.log(report);
    console.log(`\n(raw: ${await saveResults('refresh', result)})`);
  }
}
