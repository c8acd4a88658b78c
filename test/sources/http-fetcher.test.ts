import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpFetcher, redirectAllowed } from '../../builder/sources/http-fetcher.ts';
import { LOCAL_USER_AGENT as USER_AGENT } from '../../builder/net/user-agent.ts';
import type { FetchResult } from '../../builder/sources/fetcher.ts';
import { refusedUrl, startServer, testFetcher, type TestServer } from './helpers.ts';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

/** Writes 16 KiB chunks, as fast as the client reads, up to 64 MiB (counted in `sent`): a body that, for the client, never ends. */
function pumpEndless(res: ServerResponse, sent: { bytes: number }): void {
  const chunk = Buffer.alloc(16 * 1024, 'x');
  const pump = () => {
    while (sent.bytes < 64 * 1024 * 1024) {
      sent.bytes += chunk.length;
      if (!res.write(chunk)) return;
    }
  };
  res.on('drain', pump);
  res.on('close', () => res.off('drain', pump));
  pump();
}

function failure(r: FetchResult): Extract<FetchResult, { ok: false }> {
  if (r.ok) throw new Error(`expected a failure, got ${r.status}`);
  return r;
}

describe('createHttpFetcher', () => {
  it('returns the body and identifies itself with a clear User-Agent', async () => {
    server = await startServer((_req, res) => res.end('hello'));
    const r = await testFetcher().get(`${server.url}/x`, { accept: 'application/json' });
    expect(r).toMatchObject({ ok: true, status: 200, body: 'hello' });
    expect(r.latencyMs).toBeGreaterThanOrEqual(0);
    expect(server.requests[0]!.headers['user-agent']).toBe(USER_AGENT);
    expect(server.requests[0]!.headers.accept).toBe('application/json');
  });

  it('reports connection refused as a value after retrying', async () => {
    const url = await refusedUrl();
    const r = failure(await testFetcher().get(url));
    expect(r.detail).toEqual({ code: 'connection_refused', params: {} });
    expect(r.status).toBeNull();
  });

  it('times out a server that never answers, and retries the timeout', async () => {
    server = await startServer(() => {});
    const r = failure(await testFetcher({ timeoutMs: 200, retries: 1 }).get(server.url));
    expect(r.detail).toEqual({ code: 'timeout', params: { seconds: 0.2 } });
    expect(server.requests).toHaveLength(2);
    expect(r.latencyMs).toBeGreaterThanOrEqual(400);
  });

  it('times out a body that trickles past the per-request timeout, keeping the status it had', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const t = setInterval(() => res.write(' '), 40);
      res.on('close', () => clearInterval(t));
    });
    const started = Date.now();
    const r = failure(await testFetcher({ timeoutMs: 250, retries: 0 }).get(server.url));
    expect(r.detail.code).toBe('timeout');
    expect(r.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('retries a 500 with backoff and then fails with the status', async () => {
    server = await startServer((_req, res) => {
      res.statusCode = 500;
      res.end('boom');
    });
    const r = failure(await testFetcher({ retries: 2 }).get(server.url));
    expect(r.detail).toEqual({ code: 'http_status', params: { status: 500 } });
    expect(r.status).toBe(500);
    expect(server.requests).toHaveLength(3);
  });

  it('recovers when a retry after a 502 succeeds', async () => {
    server = await startServer((_req, res, n) => {
      res.statusCode = n === 1 ? 502 : 200;
      res.end('fine');
    });
    expect(await testFetcher().get(server.url)).toMatchObject({ ok: true, body: 'fine' });
    expect(server.requests).toHaveLength(2);
  });

  it('does not retry a 404', async () => {
    server = await startServer((_req, res) => {
      res.statusCode = 404;
      res.end();
    });
    expect(failure(await testFetcher().get(server.url)).detail).toEqual({
      code: 'http_status',
      params: { status: 404 },
    });
    expect(server.requests).toHaveLength(1);
  });

  it('honours Retry-After on 429 and then succeeds', async () => {
    server = await startServer((_req, res, n) => {
      if (n === 1) {
        res.writeHead(429, { 'retry-after': '1' });
        res.end();
      } else res.end('ok now');
    });
    const r = await testFetcher({ backoffBaseMs: 1 }).get(server.url);
    expect(r).toMatchObject({ ok: true, body: 'ok now' });
    expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it('fails fast when Retry-After on 429 would not fit in the run deadline', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(429, { 'retry-after': '120' });
      res.end();
    });
    const started = Date.now();
    const r = failure(await testFetcher({ deadline: Date.now() + 5_000 }).get(server.url));
    expect(r.detail).toEqual({ code: 'rate_limited_retry_after', params: { seconds: 120 } });
    expect(r.status).toBe(429);
    expect(server.requests).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('takes a request’s own number of retries: none, and a 429’s wait comes back as retry_after_s', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(429, { 'retry-after': '1' });
      res.end();
    });
    const f = testFetcher({ retries: 2, deadline: Date.now() + 5_000 });
    const once = failure(await f.get(server.url, { retries: 0 }));
    expect(server.requests).toHaveLength(1);
    expect(once).toMatchObject({ status: 429, detail: { code: 'rate_limited_wait', params: { retry_after_s: 1 } } });
    // The fetcher's own number otherwise: the same wait honoured twice, then the last answer's wait reported.
    const thrice = failure(await f.get(server.url));
    expect(server.requests).toHaveLength(4);
    expect(thrice.detail).toEqual({ code: 'rate_limited_wait', params: { retry_after_s: 1 } });
  });

  it('fails fast on a 503 whose Retry-After HTTP date is past the deadline', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(503, { 'retry-after': new Date(Date.now() + 3_600_000).toUTCString() });
      res.end();
    });
    const r = failure(await testFetcher({ deadline: Date.now() + 5_000 }).get(server.url));
    expect(r.detail).toEqual({ code: 'http_status', params: { status: 503 } });
    expect(server.requests).toHaveLength(1);
  });

  it('rejects a body over the cap, declared or streamed', async () => {
    server = await startServer((req, res) => {
      if (req.url === '/declared') {
        res.writeHead(200, { 'content-length': String(4096) });
        res.end('x'.repeat(4096));
      } else {
        res.writeHead(200);
        for (let i = 0; i < 8; i++) res.write('y'.repeat(1024));
        res.end();
      }
    });
    const f = testFetcher({ maxBodyBytes: 2048 });
    for (const path of ['/declared', '/chunked']) {
      const r = failure(await f.get(`${server.url}${path}`));
      expect(r.detail).toEqual({ code: 'body_too_large', params: { limit_kib: 2 } });
      expect(r.status).toBe(200);
    }
  });

  it('stops reading a body that never ends at the cap, long before the timeout', async () => {
    const sent = { bytes: 0 };
    server = await startServer((_req, res) => {
      res.writeHead(200);
      pumpEndless(res, sent);
    });
    const started = Date.now();
    const r = failure(await testFetcher({ maxBodyBytes: 64 * 1024, timeoutMs: 5_000 }).get(server.url));
    expect(r.detail).toEqual({ code: 'body_too_large', params: { limit_kib: 64 } });
    expect(r.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(sent.bytes).toBeLessThan(16 * 1024 * 1024);
  });

  it('follows a short redirect chain and fails a loop as a value', async () => {
    server = await startServer((req, res) => {
      const to: Record<string, string> = { '/old': '/new', '/a': '/b', '/b': '/a' };
      const target = to[req.url ?? ''];
      if (target) {
        res.writeHead(302, { location: target });
        res.end();
      } else res.end(`at ${req.url}`);
    });
    const f = testFetcher();
    expect(await f.get(`${server.url}/old`)).toMatchObject({ ok: true, body: 'at /new' });
    const loop = failure(await f.get(`${server.url}/a`));
    expect(loop.detail).toEqual({ code: 'redirect_loop', params: {} });
    expect(loop.status).toBe(302);
  });

  it('follows a redirect whose body never ends, reading at most 128 KiB of it', async () => {
    const sent = { bytes: 0 };
    server = await startServer((req, res) => {
      if (req.url !== '/endless') return void res.end('arrived');
      res.writeHead(302, { location: '/arrived' });
      pumpEndless(res, sent);
    });
    // A timeout long enough for all 64 MiB to flow: only the read limit keeps the fetcher from taking it.
    expect(await testFetcher({ timeoutMs: 5_000 }).get(`${server.url}/endless`)).toMatchObject({
      ok: true,
      body: 'arrived',
    });
    // What the server pushed before the fetcher let go: the 128 KiB read plus socket buffers, far from the 64 MiB.
    expect(sent.bytes).toBeLessThan(16 * 1024 * 1024);
  });

  it('stops after the maximum number of redirects', async () => {
    server = await startServer((req, res) => {
      const n = Number(req.url?.split('/')[2] ?? 0);
      res.writeHead(301, { location: `/r/${n + 1}` });
      res.end();
    });
    const r = failure(await testFetcher({ maxRedirects: 3 }).get(`${server.url}/r/0`));
    expect(r.detail).toEqual({ code: 'too_many_redirects', params: { max: 3 } });
    expect(server.requests).toHaveLength(4);
  });

  it('refuses to follow a redirect to a non-http scheme', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(302, { location: 'file:///etc/passwd' });
      res.end();
    });
    expect(failure(await testFetcher().get(server.url)).detail.code).toBe('bad_redirect');
  });

  it('never runs past the run deadline, even with a long per-request timeout', async () => {
    server = await startServer(() => {});
    const started = Date.now();
    const r = failure(await createHttpFetcher({ deadline: Date.now() + 300, timeoutMs: 10_000 }).get(server.url));
    expect(r.detail).toEqual({ code: 'deadline_exceeded', params: {} });
    expect(Date.now() - started).toBeLessThan(1000);
    const late = failure(await createHttpFetcher({ deadline: Date.now() - 1 }).get(server.url));
    expect(late.detail.code).toBe('deadline_exceeded');
  });

  it('bounds concurrent requests', async () => {
    let active = 0;
    let peak = 0;
    server = await startServer((_req, res) => {
      active++;
      peak = Math.max(peak, active);
      setTimeout(() => {
        active--;
        res.end('x');
      }, 60);
    });
    const f = testFetcher({ concurrency: 2 });
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => f.get(`${server!.url}/${i}`)));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(peak).toBe(2);
  });

  it('returns a non-http URL as a failure value', async () => {
    expect(failure(await testFetcher().get('ftp://127.0.0.1/x')).detail.code).toBe('invalid_url');
    expect(failure(await testFetcher().get('not a url')).detail.code).toBe('invalid_url');
  });
});

describe('redirect policy', () => {
  let other: TestServer | null = null;
  afterEach(async () => {
    await other?.close();
    other = null;
  });

  it('follows a redirect on the same host and scheme, and refuses one to another port, naming it redacted', async () => {
    other = await startServer((_req, res) => res.end('elsewhere'));
    server = await startServer((req, res) => {
      if (req.url === '/there') return void res.end('here');
      res.writeHead(302, { location: req.url === '/same' ? '/there' : `${other!.url}/x?token=s3cr3t` });
      res.end();
    });
    const f = testFetcher();
    expect(await f.get(`${server.url}/same`)).toMatchObject({ ok: true, body: 'here' });
    const r = failure(await f.get(`${server.url}/away`));
    expect(r.detail).toEqual({ code: 'redirect_not_allowed', params: { location: `${other.url}/…` } });
    expect(JSON.stringify(r)).not.toContain('s3cr3t');
    expect(other.requests).toHaveLength(0);
  });

  it('follows a redirect on the configured host, sending its credentials there and nowhere in the URL', async () => {
    server = await startServer((req, res) => {
      if (req.url === '/start') {
        res.writeHead(302, { location: '/x' });
        res.end();
      } else res.end(`auth=${req.headers.authorization ?? 'none'}`);
    });
    const withCreds = server.url.replace('http://', 'http://user:pa%3Ass@');
    const basic = `Basic ${Buffer.from('user:pa:ss').toString('base64')}`;
    expect(await testFetcher().get(`${withCreds}/start`)).toMatchObject({ ok: true, body: `auth=${basic}` });
    expect(server.requests.map((r) => r.path)).toEqual(['/start', '/x']);
  });

  it('refuses a redirect that changes the scheme, even to the same host', () => {
    const start = new URL('https://feeds.example.test/a');
    expect(redirectAllowed(start, new URL('http://feeds.example.test/b'))).toBe(false);
    expect(redirectAllowed(start, new URL('https://feeds.example.test:8443/b'))).toBe(false);
    expect(redirectAllowed(start, new URL('https://cdn.example.test/b'))).toBe(false);
    expect(redirectAllowed(start, new URL('https://feeds.example.test/b'))).toBe(true);
  });
});
