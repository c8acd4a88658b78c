// The only place that builds real dependencies (clock, fetcher, store, sink) from arguments and environment, and the
// one entry routine every command (the build, schedules/*.ts) runs through: it maps the error type to the exit code.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { ZONED_INSTANT_PATTERN } from './contract.ts';
import { ConfigError, EXIT, exitCodeFor, messageOf } from './errors.ts';
import { createLocalEdgeStore, type EdgeStore } from './publish/edge-store.ts';
import { createLocalSink } from './publish/local-sink.ts';
import { requirePublicUrls } from './public-url.ts';
import type { Sink } from './publish/sink.ts';
import { run, type RunSummary } from './run.ts';
import { disabledSourcesFromEnv, postEmbedConfigFromEnv, sourceConfigsFromEnv } from './sources/config.ts';
import { RUN_DEADLINE_MS, createHttpFetcher } from './sources/http-fetcher.ts';
import { LangSchema } from './model/schemas.ts';
import { channelsFromEnv } from './notify/channels.ts';
import { createNotifier } from './notify/send.ts';
import { createLocalStateStore } from './state/local-store.ts';
import type { StateStore } from './state/store.ts';
import { userAgentFromEnv } from './net/user-agent.ts';

export type Env = Readonly<Record<string, string | undefined>>;

/** What an entry point may touch besides its arguments and environment: the clock and two output streams. */
export interface Io {
  now(): Date;
  out(line: string): void;
  err(line: string): void;
}

export const processIo: Io = { now: () => new Date(), out: (l) => console.log(l), err: (l) => console.error(l) };

export interface BuildOptions {
  now: Date;
  outDir: string;
  stateDir: string;
  dataDir: string;
  target: 'local' | 's3';
  /** Build as of a `--now` older than the stored state (local only); a run otherwise refuses that (exit 3). */
  rebuildPast: boolean;
}

/** Reads the command line; `--target` defaults to RESET_TARGET, else local. Throws ConfigError on a bad argument. */
export function parseBuildArgs(argv: readonly string[], env: Env, clock: () => Date): BuildOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        now: { type: 'string' },
        out: { type: 'string', default: 'dist' },
        'state-dir': { type: 'string', default: '.state' },
        'data-dir': { type: 'string', default: 'data' },
        target: { type: 'string', default: env.RESET_TARGET || 'local' },
        'rebuild-past': { type: 'boolean', default: false },
      },
      strict: true,
    }));
  } catch (err) {
    throw new ConfigError('build', messageOf(err), { cause: err });
  }
  // Typed in full so that TypeScript narrows past each call.
  const fail: (message: string) => never = (message) => {
    throw new ConfigError('build', message);
  };
  const now = values.now === undefined ? clock() : new Date(values.now);
  if (values.now !== undefined && (!ZONED_INSTANT_PATTERN.test(values.now) || Number.isNaN(now.getTime())))
    fail(`--now wants an ISO 8601 timestamp with a zone, e.g. 2026-11-21T12:00:00Z; got ${JSON.stringify(values.now)}`);
  if (values.target !== 'local' && values.target !== 's3')
    fail(`--target is local or s3, got ${JSON.stringify(values.target)}`);
  // Rebuilding the past into the live bucket would publish older data over newer: exactly what fencing forbids.
  if (values['rebuild-past'] && values.target === 's3')
    fail('--rebuild-past builds into a local --out and --state-dir only, never --target s3');
  return {
    now,
    outDir: values.out,
    stateDir: values['state-dir'],
    dataDir: values['data-dir'],
    target: values.target,
    rebuildPast: values['rebuild-past'],
  };
}

/** Wires the real dependencies for one run; every entry point (build, scheduled refresh) goes through here. */
export async function runBuild(opts: BuildOptions, env: Env, io: Io): Promise<RunSummary> {
  // First, before any store, sink or edge store exists: a publishing build without its https public URL stops here
  // (exit 2), so it can neither publish loopback links nor write state.
  const urls = requirePublicUrls(env, opts.target);
  // One User-Agent for every request the run makes, to sources and notification channels alike.
  const userAgent = userAgentFromEnv(env);
  const now = () => opts.now;
  let targets: { store: StateStore; sink: Sink; edgeStore?: EdgeStore | undefined };
  if (opts.target === 's3') {
    // Loaded only for S3 runs so a local build never pays for the AWS SDK.
    targets = (await import('./s3-targets.ts')).createS3Targets(env, now);
    // The CloudFront KeyValueStore the edge router reads (stack output KeyValueStoreArn).
    const arn = env.RESET_EDGE_STORE_ARN;
    if (arn) targets.edgeStore = (await import('./publish/kvs-edge-store.ts')).createKvsEdgeStore({ arn });
  } else {
    // The edge store next to the documents, where the preview reads it.
    const store = createLocalStateStore(opts.stateDir, { now });
    targets = { store, sink: createLocalSink(opts.outDir), edgeStore: createLocalEdgeStore(opts.outDir) };
  }
  const { channels, warnings } = channelsFromEnv(env);
  for (const w of warnings) io.err(w);
  // Like a bad channel, a bad language must not stop the API from being published: English, with a warning.
  const lang = LangSchema.catch('en').parse(env.RESET_NOTIFY_LANG || 'en');
  if (lang !== (env.RESET_NOTIFY_LANG || 'en'))
    io.err(`RESET_NOTIFY_LANG is one of en, de, ko, ja, zh, got ${JSON.stringify(env.RESET_NOTIFY_LANG)}; using en`);
  const telegram = env.RESET_NOTIFY_TELEGRAM_API_URL ? { telegramApiUrl: env.RESET_NOTIFY_TELEGRAM_API_URL } : {};
  const notifier = createNotifier(channels, { log: io.out, userAgent, ...telegram });
  return run({
    ...targets,
    notify: channels.length > 0 ? { notifier, lang } : undefined,
    now,
    fetcher: createHttpFetcher({ deadline: io.now().getTime() + RUN_DEADLINE_MS, userAgent }),
    sources: sourceConfigsFromEnv(env),
    postReader: postEmbedConfigFromEnv(env),
    dataDir: path.resolve(opts.dataDir),
    urls,
    log: io.out,
    allowOlderState: opts.rebuildPast,
  });
}

export function formatSummary(s: RunSummary): string {
  if (s.skipped) return `as of ${s.asOf}: skipped, another run holds the lock`;
  const { notifications: n, edge: e } = s;
  const p = s.published!;
  const f = s.forecast!;
  const pct = (v: number | null) => (v === null ? 'null (too little data)' : `${(v * 100).toFixed(1)}%`);
  const failed = s.sources.filter((x) => !x.ok);
  const lines = [
    `as of ${s.asOf}`,
    `documents: ${s.documents} rendered, ${p.written} written, ${p.unchanged} unchanged, ${p.deleted} deleted (${p.target})`,
    `sources: ${s.sources.length - failed.length} ok, ${failed.length} failed${failed.length ? ` (${failed.map((x) => `${x.id}: ${x.detail}`).join(', ')})` : ''}`,
    `today: ${s.today} (reset: ${s.reset})`,
    `forecast: 24h ${pct(f.probability_24h)}, 48h ${pct(f.probability_48h)}, sample ${f.sample_size}, model ${f.model_version}`,
    n && `notifications: ${n.sent} sent, ${n.failed} failed (retried next run), ${n.skipped} skipped (budget)`,
    e && `edge: stale after ${e.stale_after}; store ${e.store.put} put, ${e.store.deleted} deleted (${e.store.target})`,
    ...s.warnings.map((w) => `warning: ${w}`),
  ];
  return lines.filter(Boolean).join('\n');
}

/**
 * The one entry routine: runs `body`, and turns what it throws into a message and an exit code by the error's type
 * (errors.ts: configuration 2, conflict 3, storage 4, anything else 1). `onFailure` may add to the report.
 */
export async function runMain(
  name: string,
  io: Io,
  body: () => Promise<number>,
  onFailure?: (message: string) => Promise<void>,
): Promise<number> {
  try {
    return await body();
  } catch (err) {
    const code = exitCodeFor(err);
    const message = messageOf(err);
    io.err(code === EXIT.config ? `${name}: ${message}` : `${name} failed: no valid API was produced\n${message}`);
    if (onFailure) await onFailure(message).catch(() => {});
    return code;
  }
}

/** `npm run build`: one run, local by default. */
export function main(argv: readonly string[], env: Env, io: Io = processIo): Promise<number> {
  return runMain('build', io, async () => {
    io.out(formatSummary(await runBuild(parseBuildArgs(argv, env, io.now), env, io)));
    for (const d of disabledSourcesFromEnv(env)) io.out(`disabled: ${d.id} (${d.variable} is empty)`);
    return EXIT.ok;
  });
}

/**
 * True when the module at moduleUrl is the script node was started with and that script is named `name` (its file name
 * without extension). The name matters in a bundle (scripts/build-schedules.ts): there every bundled module shares the
 * bundle's import.meta.url, so without it build/refresh.mjs would also run builder/main.ts's entry code.
 */
export function isEntryPoint(moduleUrl: string, name: string): boolean {
  const script = process.argv[1] ?? '';
  return moduleUrl === pathToFileURL(script).href && path.basename(script).replace(/\.[cm]?[jt]s$/, '') === name;
}

if (isEntryPoint(import.meta.url, 'main')) process.exitCode = await main(process.argv.slice(2), process.env);
