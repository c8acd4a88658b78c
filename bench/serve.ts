// Benchmark 4: serving. The preview (http-server + the shared router in `before`) against plain http-server over the
// same files, with wrk on loopback, alternating in the same run; then route() alone and the edge function's size.
//
//   npx tsx bench/serve.ts [--quick]
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import httpServer from 'http-server';
import { CACHE_CONTROL } from '../builder/contract.ts';
import { startPreview } from '../builder/edge/preview.ts';
import { route, type RouteRequest } from '../builder/edge/route.ts';
import { createLocalSink } from '../builder/publish/local-sink.ts';
import { run } from '../builder/run.ts';
import { createHttpFetcher } from '../builder/sources/http-fetcher.ts';
import { createLocalStateStore } from '../builder/state/local-store.ts';
import { BENCH_NOW, ROOT, benchArgs, fmtMs, median, runChild, saveResults, table } from './lib.ts';

export const ROUTING_TARGET_SHARE = 0.1;
const WRK_THREADS = 1;
const WRK_CONNECTIONS = 16;

/** The same documents as the preview serves, by their API URL and by their plain file path. */
const MIX: readonly [string, string][] = [
  ['/api/latest', '/api/en/latest.json'],
  ['/api/status?lang=de', '/api/de/status.json'],
  ['/api/forecast?lang=ja', '/api/ja/forecast.json'],
  ['/api/history?type=global_reset&lang=ko', '/api/ko/history/global_reset.json'],
  ['/api/signals?lang=zh', '/api/zh/signals.json'],
  ['/api/accuracy', '/api/en/accuracy.json'],
];

function luaScript(paths: readonly string[]): string {
  return [
    `local paths = { ${paths.map((p) => JSON.stringify(p)).join(', ')} }`,
    'local i = 0',
    'request = function()',
    '  i = i + 1',
    '  return wrk.format("GET", paths[(i % #paths) + 1])',
    'end',
  ].join('\n');
}

interface WrkRun {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  requests: number;
  /** CPU time of this process (both servers live here, wrk does not) per request served: steadier than req/s on a shared machine. */
  cpu_us_per_req: number;
}

function unitMs(v: string, unit: string): number {
  return Number(v) * (unit === 'us' ? 0.001 : unit === 's' ? 1000 : 1);
}

function parseWrk(out: string, cpuUs: number): WrkRun {
  const requests = Number(/(\d+) requests in /.exec(out)?.[1] ?? NaN);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN);
  const p50 = /\s50%\s+([\d.]+)(us|ms|s)/.exec(out);
  const p99 = /\s99%\s+([\d.]+)(us|ms|s)/.exec(out);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const errors = non2xx + (sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0);
  return {
    rps,
    p50_ms: p50 ? unitMs(p50[1]!, p50[2]!) : NaN,
    p99_ms: p99 ? unitMs(p99[1]!, p99[2]!) : NaN,
    errors,
    requests,
    cpu_us_per_req: cpuUs / requests,
  };
}

async function startPlain(root: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = httpServer.createServer({ root, cache: CACHE_CONTROL, showDir: 'false', autoIndex: 'false' });
  await new Promise<void>((resolve) => server.server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.server.close(() => resolve())),
  };
}

/** Requests a realistic client mix would send, hostile ones included, for route() alone. */
function routeMix(): RouteRequest[] {
  const out: RouteRequest[] = [];
  const ok: [string, string][] = [
    ['/api/latest', ''],
    ['/api/latest', 'lang=de'],
    ['/api/status', 'lang=ja'],
    ['/api/history', 'type=global_reset&lang=ko'],
    ['/api/events/ledger-2026-09-12-0320', 'lang=zh'],
    ['/api/forecast', ''],
  ];
  const bad: [string, string, string][] = [
    ['GET', '/api/latest', 'lang=fr'],
    ['GET', '/api/nope', ''],
    ['POST', '/api/latest', ''],
    ['GET', '/api/../etc/passwd', ''],
    ['OPTIONS', '/api/latest', ''],
  ];
  for (let i = 0; i < 20; i++) for (const [uri, query] of ok) out.push({ method: 'GET', uri, query });
  for (const [method, uri, query] of bad) out.push({ method, uri, query });
  return out;
}

export interface ServeResult {
  rounds: number;
  duration_s: number;
  preview: WrkRun[];
  plain: WrkRun[];
  /** Median of the per-round shares 1 - preview/plain: the figure held against the target. */
  routing_share: number;
  routing_share_per_round: number[];
  /** 1 - median(preview)/median(plain), as a cross-check of the median of per-round shares. */
  routing_share_of_medians: number;
  /** 1 - median plain CPU per request / median preview CPU per request: the routing's share of the preview's CPU. */
  routing_cpu_share: number;
  route_calls_per_s: number[];
  edge_function_bytes: number | null;
  wrk: boolean;
}

export async function benchServe(opts: { quick: boolean }): Promise<{ result: ServeResult; report: string }> {
  // Many short rounds rather than a few long ones: on a shared machine the load drifts, and the two runs a round
  // compares should be as close together in time as they can be.
  const rounds = opts.quick ? 4 : 10;
  const durationS = opts.quick ? 2 : 4;
  const work = await mkdtemp(path.join(tmpdir(), 'rsa-bench-serve-'));
  const dist = path.join(work, 'dist');
  const result: ServeResult = {
    rounds,
    duration_s: durationS,
    preview: [],
    plain: [],
    routing_share: NaN,
    routing_share_per_round: [],
    routing_share_of_medians: NaN,
    routing_cpu_share: NaN,
    route_calls_per_s: [],
    edge_function_bytes: null,
    wrk: false,
  };
  const lines: string[] = [];
  try {
    await run({
      now: () => new Date(BENCH_NOW),
      fetcher: createHttpFetcher(),
      sources: [],
      store: createLocalStateStore(path.join(work, 'state'), { now: () => new Date() }),
      sink: createLocalSink(dist),
      dataDir: path.join(ROOT, 'data'),
    });

    // `wrk -v` exits 1 on some builds; its presence is what counts.
    result.wrk = (await runChild('sh', ['-c', 'command -v wrk'])).code === 0;
    if (result.wrk) {
      const previewLua = path.join(work, 'preview.lua');
      const plainLua = path.join(work, 'plain.lua');
      await writeFile(previewLua, luaScript(MIX.map((m) => m[0])));
      await writeFile(plainLua, luaScript(MIX.map((m) => m[1])));
      const preview = await startPreview({ root: dist, port: 0 });
      const plain = await startPlain(dist);
      try {
        // Both answer every URL of the mix with 200 before anything is timed.
        for (const [a, b] of MIX) {
          const [ra, rb] = [await fetch(preview.url + a), await fetch(plain.url + b)];
          if (ra.status !== 200 || rb.status !== 200)
            throw new Error(`warm-up: ${a} -> ${ra.status}, ${b} -> ${rb.status}`);
          if ((await ra.text()) !== (await rb.text()))
            throw new Error(`preview and plain serve different bodies for ${a}`);
        }
        const wrk = async (url: string, script: string) => {
          const cpu0 = process.cpuUsage();
          const r = await runChild('wrk', [
            '-t',
            String(WRK_THREADS),
            '-c',
            String(WRK_CONNECTIONS),
            '-d',
            `${durationS}s`,
            '--latency',
            '-s',
            script,
            url,
          ]);
          const cpu = process.cpuUsage(cpu0);
          if (r.code !== 0) throw new Error(`wrk failed: ${r.stderr}`);
          return parseWrk(r.stdout, cpu.user + cpu.system);
        };
        await wrk(preview.url, previewLua);
        await wrk(plain.url, plainLua);
        for (let i = 0; i < rounds; i++) {
          // Alternating order, so neither server always runs on the warmer (or noisier) half of a round.
          if (i % 2 === 0) {
            result.preview.push(await wrk(preview.url, previewLua));
            result.plain.push(await wrk(plain.url, plainLua));
          } else {
            result.plain.push(await wrk(plain.url, plainLua));
            result.preview.push(await wrk(preview.url, previewLua));
          }
        }
      } finally {
        await preview.close();
        await plain.close();
      }
      result.routing_share_per_round = result.preview.map((p, i) => 1 - p.rps / result.plain[i]!.rps);
      result.routing_share = median(result.routing_share_per_round);
      result.routing_share_of_medians =
        1 - median(result.preview.map((r) => r.rps)) / median(result.plain.map((r) => r.rps));
      result.routing_cpu_share =
        1 - median(result.plain.map((r) => r.cpu_us_per_req)) / median(result.preview.map((r) => r.cpu_us_per_req));
      const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
      const row = (name: string, rs: WrkRun[]) => [
        name,
        median(rs.map((r) => r.rps)).toFixed(0),
        `${Math.min(...rs.map((r) => r.rps)).toFixed(0)}–${Math.max(...rs.map((r) => r.rps)).toFixed(0)}`,
        fmtMs(median(rs.map((r) => r.p50_ms))),
        fmtMs(median(rs.map((r) => r.p99_ms))),
        `${median(rs.map((r) => r.cpu_us_per_req)).toFixed(0)} µs`,
        rs.reduce((n, r) => n + r.errors, 0),
      ];
      lines.push(
        `### Serving: wrk -t${WRK_THREADS} -c${WRK_CONNECTIONS} -d${durationS}s --latency, ${rounds} alternating rounds over ${MIX.length} URLs, medians`,
        '',
        table(
          ['server', 'requests/s', 'range', 'p50', 'p99', 'server CPU / request', 'errors / non-2xx'],
          [row('preview (router in `before`)', result.preview), row('plain http-server, same files', result.plain)],
        ),
        '',
        `Throughput lost to routing (median of per-round 1 - preview/plain): ${pct(result.routing_share)} -> target under ${ROUTING_TARGET_SHARE * 100}%: ${result.routing_share < ROUTING_TARGET_SHARE ? 'met' : 'MISSED'}`,
        `Per round (in run order): ${result.routing_share_per_round.map(pct).join(', ')}; ratio of the medians: ${pct(result.routing_share_of_medians)}; share of the preview's CPU per request: ${pct(result.routing_cpu_share)}`,
      );
    } else {
      lines.push('### Serving: wrk is not installed; the preview/http-server comparison was skipped.');
    }

    const mix = routeMix();
    const CALLS = opts.quick ? 200_000 : 1_000_000;
    for (let r = 0; r < 5; r++) {
      const t0 = performance.now();
      let sink = 0;
      for (let i = 0; i < CALLS; i++) sink += route(mix[i % mix.length]!).kind.length;
      const ms = performance.now() - t0;
      if (sink === 0) throw new Error('unreachable');
      result.route_calls_per_s.push((CALLS / ms) * 1000);
    }
    const edgeFile = path.join(ROOT, 'edge/cloudfront-function.js');
    result.edge_function_bytes = await stat(edgeFile).then(
      (s) => s.size,
      () => null,
    );
    const edgeSize =
      result.edge_function_bytes === null
        ? 'edge/cloudfront-function.js not present'
        : `${result.edge_function_bytes} bytes (${(result.edge_function_bytes / 1024).toFixed(1)} KiB of CloudFront Functions' 10 KiB limit)`;
    lines.push(
      '',
      `Router alone: ${(median(result.route_calls_per_s) / 1e6).toFixed(2)} M route() calls/s (median of 5 x ${CALLS.toLocaleString('en')} calls over ${mix.length} requests: ${mix.length - 5} valid, 5 hostile), ${(1e9 / median(result.route_calls_per_s)) | 0} ns per call`,
      `Edge function: ${edgeSize}`,
    );
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return { result, report: lines.join('\n') };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = benchArgs();
  const { result, report } = await benchServe(args);
  console.log(report);
  console.log(`\n(raw: ${await saveResults('serve', result)})`);
}
