// Benchmark 2: the refresh with 1,000 to 100,000 synthetic events (seeded, one archive file) in five languages.
// Each size runs in its own child process, so its peak RSS is its own. In the child, repeated and interleaved:
//  - run(): the real pipeline into an empty dist (render and publish timed by the onStage hook), after one untimed
//    warm-up run();
//  - the floor: the very same documents as objects, JSON.stringify'd and written as plain files into an empty dir;
//    before run() (on the previous run's documents) in even repetitions, after it in odd ones.
// The target compares render + publish with the floor measured in the same process, on the same documents.
//
//   npx tsx bench/scale.ts [--quick] [sizes...]      e.g. npx tsx bench/scale.ts 10000
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pLimit from 'p-limit';
import { WRITE_CONCURRENCY } from '../builder/publish/local-sink.ts';
import type { PublishReport, Sink } from '../builder/publish/sink.ts';
import type { OutputDocument } from '../builder/render/output.ts';
import {
  BENCH_NOW,
  benchArgs,
  fmtMiB,
  fmtMs,
  lastJson,
  median,
  observeDocuments,
  runChild,
  saveResults,
  startSources,
  table,
  writeSyntheticData,
} from './lib.ts';

export const SCALE_TARGET_RATIO = 2;
export const SCALE_TARGET_RSS_BYTES = 1024 * 1024 * 1024;
const DEFAULT_SIZES = [1_000, 10_000, 30_000, 100_000];
const QUICK_SIZES = [1_000, 10_000];

interface ChildReport {
  events: number;
  documents: number;
  bytes: number;
  stages: Record<string, number[]>;
  floor_ms: number[];
  /** Peak RSS after the first run(), before the floor's own copies of the documents exist. */
  run_max_rss_bytes: number;
}

/** The least any publisher must do: stringify and write each file, with the sink's own I/O concurrency. */
async function floor(docs: readonly { key: string; value: unknown; text?: string }[], dir: string): Promise<number> {
  const t0 = performance.now();
  const dirs = new Set(docs.map((d) => path.dirname(path.join(dir, d.key))));
  for (const d of dirs) await mkdir(d, { recursive: true });
  const limit = pLimit(WRITE_CONCURRENCY);
  await Promise.all(docs.map((d) => limit(() => writeFile(path.join(dir, d.key), d.text ?? JSON.stringify(d.value)))));
  return performance.now() - t0;
}

async function child(dataDir: string, work: string, reps: number): Promise<void> {
  const { run } = await import('../builder/run.ts');
  const { createHttpFetcher } = await import('../builder/sources/http-fetcher.ts');
  const { sourceConfigsFromEnv } = await import('../builder/sources/config.ts');
  const { createLocalStateStore } = await import('../builder/state/local-store.ts');
  const { createLocalSink } = await import('../builder/publish/local-sink.ts');
  const stages: Record<string, number[]> = {};
  const floorMs: number[] = [];
  let documents = 0;
  // Without --expose-gc (a direct call of the child), nothing is collected up front.
  const collect = (globalThis as { gc?: () => void }).gc ?? (() => {});
  // dist-*, floor-* stay until every size is measured: see benchScale.
  /**
   * run() into an empty dist; its stages are recorded when timed. Returns the documents it published when `keep`
   * (for the floor), else only their keys and size: the warm-up's peak RSS is then the pipeline's own.
   */
  const runOnce = async (name: string, timed: boolean, keep: boolean) => {
    const captured: OutputDocument[] = [];
    const keys: string[] = [];
    let size = 0;
    const local = createLocalSink(path.join(work, `dist-${name}`));
    const seen = keep
      ? (d: OutputDocument) => void captured.push(d)
      : (d: OutputDocument) => {
          keys.push(d.key);
          size += Buffer.byteLength(d.body);
        };
    // The real sink does all the work, taking the documents as run() hands them over.
    const sink: Sink = {
      name: local.name,
      publish: (docs, opts): Promise<PublishReport> => local.publish(observeDocuments(docs, seen), opts),
    };
    collect();
    const summary = await run({
      now: () => new Date(BENCH_NOW),
      fetcher: createHttpFetcher(),
      sources: sourceConfigsFromEnv(process.env),
      store: createLocalStateStore(path.join(work, `state-${name}`), { now: () => new Date() }),
      sink,
      dataDir,
      ...(timed ? { onStage: (stage: string, ms: number) => (stages[stage] ??= []).push(ms) } : {}),
    });
    documents = summary.documents;
    return keep
      ? { docs: captured, keys: captured.map((d) => d.key), bytes: sizeOf(captured) }
      : { docs: captured, keys, bytes: size };
  };
  /** The floor on one run's documents, parsed before the clock starts and after a full collection. */
  const timedFloor = async (docs: readonly OutputDocument[], i: number) => {
    // A text document (the archives' notices, feeds, the page) is written as it is: there is nothing to stringify.
    const values = docs.map((d) =>
      d.contentType.startsWith('application/json')
        ? { key: d.key, value: JSON.parse(d.body) as unknown }
        : { key: d.key, value: null, text: d.body },
    );
    collect();
    floorMs.push(await floor(values, path.join(work, `floor-${i}`)));
  };
  const sizeOf = (docs: readonly OutputDocument[]) => docs.reduce((n, d) => n + Buffer.byteLength(d.body), 0);
  // An untimed run() first: it warms the JIT, and it is the first to create 50,000 files in this directory (the
  // first writer after a large delete, here or by another process, pays for the freed inodes: see benchScale).
  // Its peak RSS is the one reported; it keeps no document.
  const warmup = await runOnce('warmup', false, false);
  const runRss = process.resourceUsage().maxRSS * 1024;
  const keys = warmup.keys;
  const events = keys.filter((k) => k.startsWith('api/en/events/')).length;
  const bytes = warmup.bytes;
  // Odd repetitions run the floor first, on the documents of the run before (the build is deterministic, which is
  // checked), even ones after their own run: neither side is always the one measured second.
  let latest: OutputDocument[] = [];
  for (let i = 0; i < reps; i++) {
    const floorFirst = i % 2 === 1;
    if (floorFirst) await timedFloor(latest, i);
    // eslint-disable-next-line no-useless-assignment -- lets the collector free the last run's documents during this one
    latest = [];
    const rep = await runOnce(String(i), true, true);
    latest = rep.docs;
    // Only the source checks' latencies differ from one run to the next: a few bytes of the status documents.
    if (
      rep.keys.length !== keys.length ||
      rep.keys.some((k, j) => k !== keys[j]) ||
      Math.abs(rep.bytes - bytes) > 1024
    ) {
      throw new Error(
        `repetition ${i} built ${rep.keys.length} documents (${rep.bytes} bytes), the warm-up ${keys.length} (${bytes} bytes)`,
      );
    }
    if (!floorFirst) await timedFloor(latest, i);
  }
  const report: ChildReport = { events, documents, bytes, stages, floor_ms: floorMs, run_max_rss_bytes: runRss };
  console.log(JSON.stringify(report));
}

export interface ScaleRow {
  events: number;
  documents: number;
  bytes: number;
  reps: number;
  render_ms: number;
  publish_ms: number;
  total_run_ms: number;
  floor_ms: number;
  ratio: number;
  /** (render + publish) / floor of each repetition, in order. */
  ratios: number[];
  /** Each repetition's render, publish and floor, in order. */
  per_rep_ms: { render: number[]; publish: number[]; floor: number[] };
  run_max_rss_bytes: number;
  stages: Record<string, number>;
}

export async function benchScale(opts: {
  quick: boolean;
  sizes?: number[];
}): Promise<{ result: ScaleRow[]; report: string }> {
  const sizes = opts.sizes && opts.sizes.length > 0 ? opts.sizes : opts.quick ? QUICK_SIZES : DEFAULT_SIZES;
  const sources = await startSources();
  const rows: ScaleRow[] = [];
  // Nothing is deleted until every size is measured. On a journal-less ext4 (this machine's disk), creating a file
  // skips the inodes freed in the last 60 s (360 s while their inode-table block is dirty), scanning past each one:
  // right after 50,000 files are removed, every create pays for them. When dist-i was removed just before the floor
  // (and floor-i just before the next run), whichever came second was slowed by an amount that varied run to run.
  const works: string[] = [];
  try {
    for (const n of sizes) {
      const work = await mkdtemp(path.join(tmpdir(), `rsa-bench-scale-${n}-`));
      works.push(work);
      const dataDir = await writeSyntheticData(path.join(work, 'data'), n);
      const reps = n >= 50_000 ? 1 : opts.quick ? 2 : 3;
      // The floor holds the parsed documents of the whole build at once (run() no longer does: it streams): room for
      // them at 100,000 events.
      const heapMiB = Math.max(4096, Math.ceil(n / 10));
      // With V8's defaults, as the refresh tick runs.
      const c = await runChild(
        process.execPath,
        [
          `--max-old-space-size=${heapMiB}`,
          '--expose-gc',
          '--import',
          'tsx',
          'bench/scale.ts',
          '--child',
          dataDir,
          work,
          String(reps),
        ],
        {
          env: sources.env,
          timeoutMs: Math.max(20, n / 2_000) * 60 * 1000,
        },
      );
      if (c.code !== 0) throw new Error(`scale child (${n} events) exited ${c.code}\n${c.stderr.slice(-3000)}`);
      const r = lastJson<ChildReport>(c.stdout);
      const stages = Object.fromEntries(Object.entries(r.stages).map(([k, v]) => [k, median(v)]));
      const renderPublish = r.stages.render!.map((v, i) => v + r.stages.publish![i]!);
      const ratios = renderPublish.map((v, i) => v / r.floor_ms[i]!);
      rows.push({
        events: n,
        documents: r.documents,
        bytes: r.bytes,
        reps,
        render_ms: stages.render!,
        publish_ms: stages.publish!,
        total_run_ms: Object.values(stages).reduce((a, b) => a + b, 0),
        floor_ms: median(r.floor_ms),
        ratio: median(ratios),
        ratios,
        per_rep_ms: { render: r.stages.render!, publish: r.stages.publish!, floor: r.floor_ms },
        run_max_rss_bytes: r.run_max_rss_bytes,
        stages,
      });
      console.error(`[scale] ${n} events done: ratio ${median(ratios).toFixed(2)}`);
    }
  } finally {
    await sources.close();
    for (const w of works) await rm(w, { recursive: true, force: true });
  }
  const per = (v: number, n: number) => `${((v / n) * 1000).toFixed(0)} µs`;
  const ten = rows.find((r) => r.events === 10_000);
  const verdict = ten
    ? `Target at 10,000 events: render + publish within ${SCALE_TARGET_RATIO}x the floor -> ${ten.ratio.toFixed(2)}x, ${ten.ratio <= SCALE_TARGET_RATIO ? 'met' : 'MISSED'}; peak RSS under 1 GiB -> ${fmtMiB(ten.run_max_rss_bytes)}, ${ten.run_max_rss_bytes < SCALE_TARGET_RSS_BYTES ? 'met' : 'MISSED'}`
    : 'Target size 10,000 not run.';
  const report = [
    `### Scale: synthetic events x 5 languages, medians of the repetitions in one child process per size`,
    '',
    table(
      [
        'events',
        'documents',
        'output',
        'reps',
        'load+fetch+state+compute',
        'render',
        'publish (local sink)',
        'render+publish',
        'floor (stringify+write)',
        'ratio',
        'peak RSS',
        'render+publish per event',
      ],
      rows.map((r) => [
        r.events.toLocaleString('en'),
        r.documents.toLocaleString('en'),
        fmtMiB(r.bytes),
        r.reps,
        fmtMs(
          (r.stages.load ?? 0) +
            (r.stages.lock ?? 0) +
            (r.stages.fetch ?? 0) +
            (r.stages.state ?? 0) +
            (r.stages.compute ?? 0),
        ),
        fmtMs(r.render_ms),
        fmtMs(r.publish_ms),
        fmtMs(r.render_ms + r.publish_ms),
        fmtMs(r.floor_ms),
        `${r.ratio.toFixed(2)}x`,
        fmtMiB(r.run_max_rss_bytes),
        per(r.render_ms + r.publish_ms, r.events),
      ]),
    ),
    '',
    verdict,
  ].join('\n');
  return { result: rows, report };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = benchArgs();
  if (args.rest[0] === '--child') {
    const [, dataDir, work, reps] = args.rest as [string, string, string, string];
    await child(dataDir, work, Number(reps));
  } else {
    const sizes = args.rest.map(Number).filter((n) => Number.isInteger(n) && n > 0);
    const { result, report } = await benchScale({ quick: args.quick, sizes });
    console.log(report);
    console.log(`\n(raw: ${await saveResults('scale', result)})`);
  }
}
