// The only place that builds real dependencies (clock, fetcher, store, sink) from arguments and environment.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { createLocalSink } from './publish/local-sink.ts';
import type { Sink } from './publish/sink.ts';
import { run, type RunSummary } from './run.ts';
import { disabledSourcesFromEnv, sourceConfigsFromEnv } from './sources/config.ts';
import { createHttpFetcher } from './sources/http-fetcher.ts';
import { createLocalStateStore } from './state/local-store.ts';
import type { StateStore } from './state/store.ts';

export class UsageError extends Error {}

export interface BuildOptions {
  now: Date;
  outDir: string;
  stateDir: string;
  dataDir: string;
  target: 'local' | 's3';
}

export function parseBuildArgs(argv: readonly string[], clock: () => Date = () => new Date()): BuildOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      now: { type: 'string' },
      out: { type: 'string', default: 'dist' },
      'state-dir': { type: 'string', default: '.state' },
      'data-dir': { type: 'string', default: 'data' },
      target: { type: 'string', default: process.env.RESET_TARGET ?? 'local' },
    },
    strict: true,
  });
  let now = clock();
  if (values.now !== undefined) {
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(values.now) || Number.isNaN(Date.parse(values.now))) {
      throw new UsageError(`--now wants an ISO 8601 timestamp with a zone, e.g. 2026-11-21T12:00:00Z; got ${JSON.stringify(values.now)}`);
    }
    now = new Date(values.now);
  }
  if (values.target !== 'local' && values.target !== 's3') throw new UsageError(`--target is local or s3, got ${JSON.stringify(values.target)}`);
  return { now, outDir: values.out, stateDir: values['state-dir'], dataDir: values['data-dir'], target: values.target };
}

export type Env = Readonly<Record<string, string | undefined>>;

export async function createTargets(opts: BuildOptions, env: Env): Promise<{ store: StateStore; sink: Sink }> {
  if (opts.target === 's3') {
    // Loaded only for S3 runs so a local build never pays for the AWS SDK.
    const { createS3Targets } = await import('./publish/s3-targets.ts');
    return createS3Targets(env, () => opts.now);
  }
  return { store: createLocalStateStore(opts.stateDir), sink: createLocalSink(opts.outDir) };
}

/** Wires the real dependencies for one run; every entry point (build, scheduled refresh) goes through here. */
export async function runBuild(opts: BuildOptions, env: Env): Promise<RunSummary> {
  const { store, sink } = await createTargets(opts, env);
  return run({
    now: () => opts.now,
    fetcher: createHttpFetcher(),
    sources: sourceConfigsFromEnv(env),
    store,
    sink,
    dataDir: path.resolve(opts.dataDir),
    log: (l) => console.log(l),
  });
}

export function formatSummary(s: RunSummary): string {
  if (s.skipped) return `as of ${s.asOf}: skipped, another run holds the lock`;
  const p = s.published!;
  const pct = (v: number | null) => (v === null ? 'null (too little data)' : `${(v * 100).toFixed(1)}%`);
  const failed = s.sources.filter((x) => !x.ok);
  const lines = [
    `as of ${s.asOf}`,
    `documents: ${s.documents} rendered, ${p.written} written, ${p.unchanged} unchanged, ${p.deleted} deleted (${p.target})`,
    `sources: ${s.sources.length - failed.length} ok, ${failed.length} failed${failed.length ? ` (${failed.map((f) => `${f.id}: ${f.detail}`).join(', ')})` : ''}`,
    `today: ${s.today} (reset: ${s.reset})`,
    `forecast: 24h ${pct(s.forecast!.probability_24h)}, 48h ${pct(s.forecast!.probability_48h)}, sample ${s.forecast!.sample_size}, model ${s.forecast!.model_version}`,
  ];
  for (const w of s.warnings) lines.push(`warning: ${w}`);
  return lines.join('\n');
}

export async function main(argv: readonly string[]): Promise<number> {
  let opts: BuildOptions;
  try {
    opts = parseBuildArgs(argv);
  } catch (err) {
    console.error(`build: ${(err as Error).message}`);
    return 2;
  }
  try {
    const summary = await runBuild(opts, process.env);
    console.log(formatSummary(summary));
    for (const d of disabledSourcesFromEnv(process.env)) console.log(`disabled: ${d.id} (${d.variable} is empty)`);
    return 0;
  } catch (err) {
    console.error(`build failed: no valid API was produced\n${(err as Error).message}`);
    return 1;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = await main(process.argv.slice(2));
}
