// One HTTP(S) request and its response head, over Node's own client (node:http, node:https): the project's one HTTP
// client, for the sources' fetcher, the notifier and the S3 sink's uploads (s3/object-put.ts). Node's client parses
// with the native llhttp; undici, which the fetcher and the notifier used before, compiled its WebAssembly llhttp and
// loaded its whole fetch/WebSocket/cache stack at every tick: without it a tick took 680 → 530 ms of CPU and 600 → 512
// ms of wall time (BENCHMARKS.md 1a). The response head is bounded by Node's 16 KiB header limit, the same as
// undici's; bodies are read by the caller, which caps them. Timeouts: `signal` ends the request (aborting after the
// head arrived ends the body stream with an AbortError too), or `connectMs` and `idleMs` bound the connecting and each
// silence on the connection.
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface ExchangeAgents {
  http: HttpAgent;
  https: HttpsAgent;
}

export interface ExchangeRequest {
  /** An http: or https: URL. Node sends a userinfo part as Basic auth; the fetcher strips it and sends its own. */
  url: string;
  method: 'GET' | 'POST' | 'PUT';
  headers: Record<string, string>;
  body?: string | Buffer;
  signal?: AbortSignal;
  /** Connection pools to use; Node's global agents (kept alive, idle sockets unref'd) when absent. */
  agents?: ExchangeAgents;
  /** Time to get a connection (a kept-alive one is there at once); past it the request fails with a TimeoutError. */
  connectMs?: number;
  /** Silence on the connection that ends the request with a TimeoutError; a transfer that keeps moving goes on. */
  idleMs?: number;
}

const timeoutError = (message: string): Error => Object.assign(new Error(message), { name: 'TimeoutError' });

export interface ExchangeResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** The body as a stream of Buffers: read it to the end, or call discard(). */
  body: IncomingMessage;
}

/** Sends the request; resolves with the status and headers once they arrive. Network errors and aborts reject. */
export function exchange(req: ExchangeRequest): Promise<ExchangeResponse> {
  const url = new URL(req.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return Promise.reject(new TypeError(`not an http(s) URL: ${url.protocol}`));
  const https = url.protocol === 'https:';
  const send = https ? httpsRequest : httpRequest;
  const agent = req.agents ? (https ? req.agents.https : req.agents.http) : undefined;
  return new Promise((resolve, reject) => {
    const r = send(url, { method: req.method, headers: req.headers, ...(req.signal ? { signal: req.signal } : {}), ...(agent ? { agent } : {}) }, (res) => {
      resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: res });
    });
    const { connectMs, idleMs } = req;
    if (connectMs !== undefined) {
      const timer = setTimeout(() => r.destroy(timeoutError(`no connection within ${connectMs} ms`)), connectMs);
      r.on('socket', (socket) => {
        if (!socket.connecting) clearTimeout(timer);
        else socket.once('connect', () => clearTimeout(timer));
      });
      r.on('close', () => clearTimeout(timer));
    }
    if (idleMs !== undefined) r.setTimeout(idleMs, () => r.destroy(timeoutError(`no data for ${idleMs} ms`)));
    r.on('error', reject);
    // One end() with the whole body: Node sends it with its Content-Length, never chunked (some receivers refuse that).
    r.end(req.body);
  });
}

/** A header's first value, or null. */
export function headerValue(headers: IncomingHttpHeaders, name: string): string | null {
  const v = headers[name];
  if (v === undefined) return null;
  return Array.isArray(v) ? (v[0] ?? null) : v;
}

/** Drops a body that will not be read (its connection too); a later stream error is not an uncaught one. */
export function discard(body: IncomingMessage): void {
  body.on('error', () => undefined);
  body.destroy();
}

/**
 * Reads and drops at most `limit` bytes of a body so its connection can be reused, then lets go of the rest (the
 * connection closes). Never rejects: a failing body only means the connection is not reused.
 */
export function drain(body: IncomingMessage, limit: number): Promise<void> {
  return new Promise((resolve) => {
    let size = 0;
    const done = () => resolve();
    body.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        discard(body);
        resolve();
      }
    });
    body.on('end', done);
    body.on('error', done);
    body.on('close', done);
  });
}

/** Kept-alive connection pools for a batch of requests (at most `maxSockets` per host); closeAgents closes them. */
export function createAgents(opts: { maxSockets?: number } = {}): ExchangeAgents {
  const options = { keepAlive: true, ...(opts.maxSockets !== undefined ? { maxSockets: opts.maxSockets } : {}) };
  return { http: new HttpAgent(options), https: new HttpsAgent(options) };
}

export function closeAgents(a: ExchangeAgents): void {
  a.http.destroy();
  a.https.destroy();
}
