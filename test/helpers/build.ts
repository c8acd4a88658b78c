// Builds a real API into a temporary directory with the real pipeline (run), for tests that need dist/.
import { mkdtemp } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLocalEdgeStore } from '../../builder/publish/edge-store.ts';
import { createLocalSink } from '../../builder/publish/local-sink.ts';
import { run, type RunSummary } from '../../builder/run.ts';
import type { SourceConfig } from '../../builder/sources/fetcher.ts';
import { createHttpFetcher } from '../../builder/sources/http-fetcher.ts';
import { createLocalStateStore } from '../../builder/state/local-store.ts';

export const DATA_DIR = new URL('../../data', import.meta.url).pathname;

export interface TempBuild {
  outDir: string;
  stateDir: string;
  /** `rebuildPast`: build as of a `now` older than the stored state (`--rebuild-past`) instead of refusing. */
  build(
    now: string,
    sources?: readonly SourceConfig[],
    dataDir?: string,
    opts?: { rebuildPast?: boolean },
  ): Promise<RunSummary>;
}

/**
 * `edgeStore`: also write `edge-store.json` next to the documents, as `npm run build` does (the preview then routes by
 * it). `publicUrl`: build as with RESET_PUBLIC_BASE_URL (the OpenAPI servers URL and the feeds' and calendar's links).
 */
export async function createTempBuild(options: { edgeStore?: boolean; publicUrl?: string } = {}): Promise<TempBuild> {
  const root = await mkdtemp(path.join(tmpdir(), 'rsa-build-'));
  const outDir = path.join(root, 'dist');
  const stateDir = path.join(root, 'state');
  return {
    outDir,
    stateDir,
    build: (now, sources = [], dataDir = DATA_DIR, opts = {}) =>
      run({
        now: () => new Date(now),
        fetcher: createHttpFetcher({ timeoutMs: 2_000, retries: 0, deadline: Date.now() + 10_000 }),
        sources,
        store: createLocalStateStore(stateDir, { now: () => new Date() }),
        sink: createLocalSink(outDir),
        ...(options.edgeStore ? { edgeStore: createLocalEdgeStore(outDir) } : {}),
        ...(options.publicUrl !== undefined
          ? { urls: { publicUrl: options.publicUrl, serverUrl: options.publicUrl } }
          : {}),
        dataDir,
        allowOlderState: opts.rebuildPast ?? false,
      }),
  };
}

export interface LoopbackServer {
  url: string;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 with a free port. */
export async function startLoopback(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<LoopbackServer> {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An upstream reset tracker answering with the given records (newest first), one page. */
export function trackerHandler(records: () => unknown[]) {
  return (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        data: records(),
        pagination: { has_more: false, next_cursor: null },
        meta: { api_version: '1', generated_at: new Date(0).toISOString() },
      }),
    );
  };
}
