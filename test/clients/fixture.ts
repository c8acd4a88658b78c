// The real API for the client tests: a build by the real pipeline (test/helpers/build.ts) served by the real preview
// (builder/edge/preview.ts) on loopback, plus a counting pass-through proxy to see how many requests reach it.
import { execFile } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { startPreview, type PreviewServer } from '../../builder/edge/preview.ts';
import { createTempBuild, startLoopback, trackerHandler, type LoopbackServer } from '../helpers/build.ts';

export const BIN = path.resolve(import.meta.dirname, '../../clients/dist/reset-status.js');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The built bin as a child process, as `npx reset-status` runs it. */
export function runCli(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', LANG: 'C', ...env }, timeout: 20_000 },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

export interface Proxy extends LoopbackServer {
  /** Requests seen, by path and query. */
  requests: string[];
  /** Where the next requests go. */
  target: string;
  /** Rewrites the Cache-Control max-age, seconds (null: pass it on). */
  maxAge: number | null;
}

/** A pass-through proxy on loopback that counts what reaches the API. */
export async function startProxy(target: string): Promise<Proxy> {
  const state = { requests: [] as string[], target, maxAge: null as number | null };
  const server = await startLoopback((req: IncomingMessage, res: ServerResponse) => {
    state.requests.push(req.url ?? '/');
    const headers: Record<string, string> = {};
    for (const h of ['if-none-match', 'accept']) if (typeof req.headers[h] === 'string') headers[h] = req.headers[h];
    fetch(`${state.target}${req.url ?? '/'}`, { headers })
      .then(async (r) => {
        const out: Record<string, string> = {};
        r.headers.forEach((v, k) => {
          if (k !== 'content-length' && k !== 'content-encoding' && k !== 'transfer-encoding' && k !== 'connection')
            out[k] = v;
        });
        if (state.maxAge !== null) out['cache-control'] = `public, max-age=${state.maxAge}`;
        res.writeHead(r.status, out);
        res.end(Buffer.from(await r.arrayBuffer()));
      })
      .catch(() => {
        res.writeHead(502);
        res.end();
      });
  });
  return Object.assign(state, server) as Proxy;
}

export interface Api {
  /** Served with the real clock: fresh. */
  fresh: PreviewServer;
  /** The same build with the preview's clock 3 days on: the edge answers `unknown` itself. */
  edgeStale: PreviewServer;
  /** A build 2 hours old served as if it were current: fresh at the edge, stale by the client's own clock. */
  clientStale: PreviewServer;
  /** The same 2-hour-old build with the real clock (builds stopped): the edge serves its unknown and expired variants. */
  stopped: PreviewServer;
  tracker: LoopbackServer;
  close(): Promise<void>;
}

const iso = (ms: number) => new Date(ms).toISOString();

export async function startApi(): Promise<Api> {
  const now = Date.now();
  const records = trackerHandler(() => [
    {
      id: 'cli-reset',
      reset_type: 'regular',
      announced_at: iso(now - 60_000),
      text: 'Codex limits reset for everyone.',
      source: { type: 'observed', url: 'https://tracker.example/claims/cli-reset' },
    },
  ]);
  // The tracker's status names an announced reset two hours ahead: the API's `upcoming`.
  const tracker = await startLoopback((req, res) => {
    if (!req.url?.includes('/status')) return records(req, res);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        data: {
          scheduled_reset: {
            id: 'cli-next',
            status: 'scheduled',
            reset_type: 'regular',
            announced_at: iso(now - 30_000),
            scheduled_for: iso(now + 2 * 3600_000),
            text: 'Another reset in two hours.',
            source: { type: 'x_post', url: 'https://x.com/a/status/42' },
          },
        },
      }),
    );
  });
  const sources = [
    { id: 'reset-tracker', kind: 'reset_tracker' as const, url: `${tracker.url}/api/v1/resets` },
    { id: 'tracker-status', kind: 'tracker_status' as const, url: `${tracker.url}/api/v1/status` },
  ];
  const current = await createTempBuild({ edgeStore: true });
  await current.build(iso(now), sources);
  const old = await createTempBuild({ edgeStore: true });
  const oldAt = now - 2 * 3600_000;
  const empty = await startLoopback(trackerHandler(() => []));
  await old.build(iso(oldAt), [
    { id: 'reset-tracker', kind: 'reset_tracker' as const, url: `${empty.url}/api/v1/resets` },
  ]);
  await empty.close();
  const fresh = await startPreview({ root: current.outDir, port: 0 });
  const edgeStale = await startPreview({ root: current.outDir, port: 0, now: () => now + 3 * 86_400_000 });
  const clientStale = await startPreview({ root: old.outDir, port: 0, now: () => oldAt + 60_000 });
  const stopped = await startPreview({ root: old.outDir, port: 0 });
  return {
    fresh,
    edgeStale,
    clientStale,
    stopped,
    tracker,
    close: async () => {
      await Promise.all([fresh.close(), edgeStale.close(), clientStale.close(), stopped.close(), tracker.close()]);
    },
  };
}

/** A loopback port nothing listens on. */
export async function downUrl(): Promise<string> {
  const s = await startLoopback(() => undefined);
  await s.close();
  return s.url;
}

export { execFile };
