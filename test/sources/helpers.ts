// Real loopback HTTP servers for source tests. Only 127.0.0.1, port 0.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createHttpFetcher, type HttpFetcherOptions } from '../../builder/sources/http-fetcher.ts';
import type { Fetcher } from '../../builder/sources/fetcher.ts';

export interface TestServer {
  url: string;
  requests: { path: string; headers: IncomingMessage['headers']; at: number }[];
  close(): Promise<void>;
}

export async function startServer(
  handler: (req: IncomingMessage, res: ServerResponse, n: number) => void,
): Promise<TestServer> {
  const requests: TestServer['requests'] = [];
  const server: Server = createServer((req, res) => {
    requests.push({ path: req.url ?? '', headers: req.headers, at: Date.now() });
    handler(req, res, requests.length);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A loopback URL nothing listens on: a server is bound to find a free port, then closed. */
export async function refusedUrl(): Promise<string> {
  const s = await startServer(() => {});
  await s.close();
  return `${s.url}/`;
}

export function fixture(name: string): string {
  return readFileSync(new URL(`../fixtures/sources/${name}`, import.meta.url), 'utf8');
}

export function sendJson(
  res: ServerResponse,
  body: string | object,
  status = 200,
  headers: Record<string, string> = {},
): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

/** Small limits so every fault test finishes in well under a second or two. */
export function testFetcher(opts: HttpFetcherOptions = {}): Fetcher {
  return createHttpFetcher({ timeoutMs: 400, retries: 2, backoffBaseMs: 20, deadline: Date.now() + 10_000, ...opts });
}

export const AS_OF = new Date('2026-11-21T12:00:00Z');
