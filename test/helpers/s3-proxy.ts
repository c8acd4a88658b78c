// A real HTTP proxy on 127.0.0.1 in front of an S3 server (radosgw), for the storage fault tests and the idle-tick
// benchmark: it counts requests by method and injects faults into the requests a rule matches. SigV4 signs the
// Host header, which is forwarded unchanged, so radosgw accepts the proxied requests as they are.
import { request as httpRequest, createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What the proxy does instead of forwarding a matched request. */
export type S3Fault =
  /** 500 InternalError, without forwarding. */
  | 'internal_error'
  /** 503 SlowDown, without forwarding. */
  | 'slow_down'
  /** The connection is dropped as soon as the request head arrives: nothing reaches S3, no answer. */
  | 'drop_request'
  /** Forwarded (the request lands), then the connection is dropped before the answer is complete. */
  | 'drop_response'
  /** Held unanswered, not forwarded: the client's own timeout must end it (a stalled S3). */
  | 'hang';

export interface S3Request {
  method: string;
  bucket: string;
  /** Decoded object key, '' for bucket-level requests. */
  key: string;
  /** True for a request with a query string such as `?list-type=2`. */
  hasQuery: boolean;
}

export interface FaultRule {
  label: string;
  fault: S3Fault;
  match: (r: S3Request) => boolean;
  /** How many matching requests get the fault; later ones are forwarded. */
  times: number;
}

export interface Injection {
  label: string;
  fault: S3Fault;
  method: string;
  key: string;
}

export interface S3Proxy {
  url: string;
  /** Requests seen, by method (forwarded or not). */
  counts: Map<string, number>;
  /** Every fault injected, in order. */
  injections: Injection[];
  /** Arms rules; a rule with times left applies to the next matching request. */
  arm(...rules: FaultRule[]): void;
  /** Rules with faults still to inject. */
  pending(): FaultRule[];
  /** Drops every armed rule, returning the ones that still had faults to inject. */
  disarm(): FaultRule[];
  /** Sees every request first; calling `freeze` from here holds this very request too. */
  onRequest: ((r: S3Request) => void) | null;
  /** Sees every forwarded request's answer once S3 has sent all of it, with its status. */
  onAnswered: ((r: S3Request, status: number) => void) | null;
  /** From now on every request is held unanswered (a process about to be killed); `thaw` drops the held ones. */
  freeze(): void;
  thaw(): void;
  resetCounts(): void;
  total(): number;
  close(): Promise<void>;
}

const ERROR_TEXT: Record<'internal_error' | 'slow_down', { status: number; code: string; message: string }> = {
  internal_error: {
    status: 500,
    code: 'InternalError',
    message: 'We encountered an internal error. Please try again.',
  },
  slow_down: { status: 503, code: 'SlowDown', message: 'Please reduce your request rate.' },
};

export function parseS3Request(method: string, url: string): S3Request {
  const q = url.indexOf('?');
  const pathname = q === -1 ? url : url.slice(0, q);
  const parts = pathname.split('/').slice(1);
  const bucket = decodeURIComponent(parts[0] ?? '');
  const key = parts.slice(1).map(decodeURIComponent).join('/');
  return { method, bucket, key, hasQuery: q !== -1 };
}

export async function startS3Proxy(target: string): Promise<S3Proxy> {
  const t = new URL(target);
  const counts = new Map<string, number>();
  const injections: Injection[] = [];
  let rules: { rule: FaultRule; left: number }[] = [];
  let frozen = false;
  const held = new Set<Socket>();
  const sockets = new Set<Socket>();

  const proxy: S3Proxy = {
    url: '',
    counts,
    injections,
    onRequest: null,
    onAnswered: null,
    arm: (...r) => {
      rules.push(...r.map((rule) => ({ rule, left: rule.times })));
    },
    pending: () => rules.filter((r) => r.left > 0).map((r) => r.rule),
    disarm: () => {
      const left = proxy.pending();
      rules = [];
      return left;
    },
    freeze: () => {
      frozen = true;
    },
    thaw: () => {
      frozen = false;
      for (const s of held) s.destroy();
      held.clear();
    },
    resetCounts: () => counts.clear(),
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };

  function forward(req: IncomingMessage, onResponse: (up: IncomingMessage) => void, onError: () => void): void {
    const up = httpRequest(
      { host: t.hostname, port: t.port, method: req.method, path: req.url, headers: req.headers },
      onResponse,
    );
    up.on('error', onError);
    req.pipe(up);
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const method = req.method ?? '?';
    counts.set(method, (counts.get(method) ?? 0) + 1);
    const r = parseS3Request(method, req.url ?? '/');
    proxy.onRequest?.(r);
    if (frozen) {
      held.add(req.socket);
      return;
    }
    const hit = rules.find((x) => x.left > 0 && x.rule.match(r));
    if (hit) {
      hit.left--;
      rules = rules.filter((x) => x.left > 0);
      injections.push({ label: hit.rule.label, fault: hit.rule.fault, method, key: r.key });
    }
    const fault = hit?.rule.fault ?? null;

    if (fault === 'internal_error' || fault === 'slow_down') {
      const e = ERROR_TEXT[fault];
      req.resume();
      req.on('end', () => {
        const body = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${e.code}</Code><Message>${e.message}</Message><Resource>/${r.bucket}/${r.key}</Resource></Error>`;
        res.writeHead(e.status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      });
      return;
    }
    if (fault === 'drop_request') {
      req.socket.destroy();
      return;
    }
    if (fault === 'hang') {
      held.add(req.socket);
      return;
    }
    forward(
      req,
      (up) => {
        if (fault === 'drop_response') {
          // The request has landed; the client gets at most the head and half the body, then a dead connection.
          const chunks: Buffer[] = [];
          up.on('data', (c: Buffer) => chunks.push(c));
          up.on('end', () => {
            const body = Buffer.concat(chunks);
            if (body.length > 1) {
              res.writeHead(up.statusCode ?? 502, up.headers);
              res.write(body.subarray(0, body.length >> 1));
              res.once('drain', () => res.socket?.destroy());
              setImmediate(() => res.socket?.destroy());
            } else {
              res.socket?.destroy();
            }
          });
          return;
        }
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.on('end', () => proxy.onAnswered?.(r, up.statusCode ?? 502));
        up.pipe(res);
      },
      () => res.destroy(),
    );
  });
  server.keepAliveTimeout = 30_000;
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => {
      sockets.delete(s);
      held.delete(s);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
