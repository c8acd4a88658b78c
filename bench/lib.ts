// Shared pieces of the benchmarks: statistics, loopback sources, reproducible synthetic data, child processes.
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EventInput } from '../builder/model/schemas.ts';
import type { DocumentStream } from '../builder/publish/sink.ts';
import type { OutputDocument } from '../builder/render/output.ts';
import { seededRandom } from '../builder/model/resetbench.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const FIXTURES = path.join(ROOT, 'test/fixtures/sources');
/** The `now` every benchmark run uses, so data and output are identical from run to run. */
export const BENCH_NOW = '2026-11-21T12:00:00Z';

export interface BenchArgs {
  quick: boolean;
  json: string | null;
  rest: string[];
}

export function benchArgs(argv: readonly string[] = process.argv.slice(2)): BenchArgs {
  const out: BenchArgs = { quick: false, json: null, rest: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--quick') out.quick = true;
    else if (a === '--json') out.json = argv[++i] ?? null;
    else out.rest.push(a);
  }
  return out;
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export const fmtMs = (ms: number) =>
  ms >= 10_000
    ? `${(ms / 1000).toFixed(1)} s`
    : ms >= 1000
      ? `${(ms / 1000).toFixed(2)} s`
      : `${ms.toFixed(ms < 10 ? 2 : 0)} ms`;
export const fmtMiB = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

export function machine(): Record<string, string | number> {
  return {
    node: process.version,
    nproc: os.availableParallelism(),
    cpu: os.cpus()[0]?.model ?? 'unknown',
    memory_mib: Math.round(os.totalmem() / 1024 / 1024),
    platform: `${os.platform()} ${os.release()}`,
  };
}

/** Markdown table from rows of cells. */
export function table(head: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const line = (cells: readonly (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Appends one benchmark's results to bench/results/<name>.json (ignored by git) and returns the path. */
export async function saveResults(name: string, results: unknown): Promise<string> {
  const dir = path.join(ROOT, 'bench/results');
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify({ at: new Date().toISOString(), machine: machine(), results }, null, 2));
  return file;
}

export interface Loopback {
  url: string;
  requests: number;
  close(): Promise<void>;
}

export async function startLoopback(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Loopback> {
  const server: Server = createServer((req, res) => {
    lb.requests++;
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const lb: Loopback = {
    url: `http://127.0.0.1:${port}`,
    requests: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return lb;
}

export interface Sources {
  env: Record<string, string>;
  close(): Promise<void>;
}

/** The three live sources of a refresh (tracker, status page, feed) on loopback, answering recorded shapes. */
export async function startSources(): Promise<Sources> {
  const tracker = JSON.parse(await readFile(path.join(FIXTURES, 'tracker-page-1.json'), 'utf8')) as {
    pagination: unknown;
  };
  tracker.pagination = { has_more: false, next_cursor: null };
  const trackerBody = JSON.stringify(tracker);
  const statusBody = await readFile(path.join(FIXTURES, 'statuspage-incidentio-summary.json'), 'utf8');
  const feedBody = await readFile(path.join(FIXTURES, 'feed-rss.xml'), 'utf8');
  const serve = (type: string, body: string) => (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': type });
    res.end(body);
  };
  const servers = [
    await startLoopback(serve('application/json', trackerBody)),
    await startLoopback(serve('application/json', statusBody)),
    await startLoopback(serve('application/rss+xml', feedBody)),
  ] as const;
  return {
    env: {
      RESET_UPSTREAM_URL: `${servers[0].url}/api/v1/resets`,
      RESET_STATUS_PAGE_URL: `${servers[1].url}/api/v2/summary.json`,
      // The bench serves no incident feed: that source is switched off.
      RESET_STATUS_INCIDENTS_URL: '',
      RESET_SIGNAL_FEEDS: `${servers[2].url}/r/codex/new/.rss`,
    },
    close: async () => {
      for (const s of servers) await s.close();
    },
  };
}

/** The bench's seeded generator is the backtest's: the same sequence on every machine for a given seed. */
export const prng = seededRandom;

const TYPES = ['global_reset', 'global_reset', 'global_reset', 'banked_grant', 'policy_change'] as const;
const REASONS = ['incident', 'launch', 'milestone', 'celebration', 'other'] as const;
const WORDS = [
  'limits',
  'reset',
  'codex',
  'everyone',
  'today',
  'capacity',
  'thanks',
  'outage',
  'usage',
  'weekly',
  'plus',
  'pro',
];
const TITLES = {
  en: 'Usage limits reset for everyone',
  de: 'Nutzungslimits für alle zurückgesetzt',
  ko: '모든 사용자의 사용 한도 초기화',
  ja: '全員の利用上限がリセットされました',
  zh: '所有人的使用额度已重置',
} as const;
const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * The last year gets a realistic density (the ledger had ~50 resets in a year); the bulk lies 1 to 20 years back.
 * A year with a reset in every 48-hour window drives the climatology to exactly 1, which the response schema
 * (probabilities strictly inside (0, 1)) rejects: the build fails.
 */
const RECENT_EVENTS = 150;
const RECENT_SPAN_MS = 365 * DAY_MS;
const BULK_FROM_MS = 400 * DAY_MS;
const BULK_SPAN_MS = 20 * 365 * DAY_MS;

/** `n` events, reproducible from `seed`: a third with hand-written text in all five languages, the rest templated. */
export function syntheticEvents(n: number, seed = 42): EventInput[] {
  const rnd = prng(seed);
  const end = Date.parse(BENCH_NOW) - 60 * 60 * 1000;
  const out: EventInput[] = [];
  for (let i = 0; i < n; i++) {
    const back = i < RECENT_EVENTS ? rnd() * RECENT_SPAN_MS : BULK_FROM_MS + rnd() * BULK_SPAN_MS;
    const at = new Date(end - Math.floor(back)).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const type = TYPES[Math.floor(rnd() * TYPES.length)]!;
    const words = Array.from(
      { length: 12 + Math.floor(rnd() * 30) },
      () => WORDS[Math.floor(rnd() * WORDS.length)]!,
    ).join(' ');
    const e: EventInput = {
      id: `syn-${String(i).padStart(6, '0')}`,
      type,
      status: 'archived',
      reason:
        type === 'banked_grant'
          ? 'banked'
          : type === 'policy_change'
            ? 'policy'
            : REASONS[Math.floor(rnd() * REASONS.length)]!,
      origin: 'ledger',
      time_precision: 'second',
      time_basis: 'announcement',
      announced_at: at,
      observed_at: null,
      effective_at: null,
      evidence_text: `${words}.`,
      sources: [
        { platform: 'X', url: `https://x.com/example/status/19000${String(i).padStart(14, '0')}`, author: 'example' },
      ],
    };
    if (i % 3 === 0) {
      e.title = { ...TITLES };
      e.summary = {
        en: `${TITLES.en}: ${words.slice(0, 60)}`,
        de: TITLES.de,
        ko: TITLES.ko,
        ja: TITLES.ja,
        zh: TITLES.zh,
      };
    }
    out.push(e);
  }
  return out;
}

/** A data dir with one archive file of `n` synthetic events (and nothing else), like data/ in shape. */
export async function writeSyntheticData(dir: string, n: number, seed = 42): Promise<string> {
  await mkdir(path.join(dir, 'archive'), { recursive: true });
  const archive = {
    archive: {
      name: 'synthetic',
      url: 'https://example.invalid/synthetic',
      license: 'CC0-1.0',
      notice: `Synthetic benchmark data (seed ${seed}).`,
    },
    records: syntheticEvents(n, seed),
  };
  await writeFile(path.join(dir, 'archive', 'synthetic.json'), JSON.stringify(archive));
  return dir;
}

export interface ChildResult {
  code: number | null;
  stdout: string;
  stderr: string;
  wallMs: number;
}

/** Runs a command to completion; wall time covers process start to exit. */
export function runChild(
  cmd: string,
  args: readonly string[],
  opts: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {},
): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(cmd, args, {
      cwd: opts.cwd ?? ROOT,
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = opts.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs) : null;
    child.on('error', reject);
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code, stdout, stderr, wallMs: performance.now() - started });
    });
  });
}

/** The last line of a child's stdout that parses as a JSON object: how child benchmarks report back. */
export function lastJson<T>(stdout: string): T {
  const lines = stdout.trim().split('\n').reverse();
  for (const l of lines) {
    if (l.startsWith('{')) return JSON.parse(l) as T;
  }
  throw new Error(`no JSON result in child output:\n${stdout.slice(-2000)}`);
}

/**
 * The documents given to a sink, passed on as the sink takes them: an array as it is, any other stream one document
 * at a time, so a sink wrapped by a bench still streams, and the bench holds only what `seen` keeps.
 */
export function observeDocuments(docs: DocumentStream, seen: (doc: OutputDocument) => void): DocumentStream {
  if (Array.isArray(docs)) {
    for (const d of docs as readonly OutputDocument[]) seen(d);
    return docs;
  }
  return (async function* () {
    for await (const d of docs) {
      seen(d);
      yield d;
    }
  })();
}
