// The typed client's transport against loopback servers: retries with backoff on 5xx and network errors only, never
// on a 4xx; the timeout; conditional requests answered 304 from the cache; freshness by the client's own clock.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createResetStatusClient, ResetStatusError } from '../../clients/src/client.ts';
import { startLoopback, type LoopbackServer } from '../helpers/build.ts';
import { startApi, startProxy, type Api } from './fixture.ts';

let api: Api;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => api?.close());

async function scripted(
  statuses: number[],
  body: (status: number) => string,
): Promise<LoopbackServer & { hits: () => number }> {
  let hits = 0;
  const server = await startLoopback((_req: IncomingMessage, res: ServerResponse) => {
    const status = statuses[Math.min(hits++, statuses.length - 1)]!;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body(status));
  });
  return Object.assign(server, { hits: () => hits });
}

const ERROR_DOC = (status: number) =>
  JSON.stringify({
    error: { status, code: 'not_found', message: 'The requested resource does not exist.' },
    meta: { lang: 'en' },
  });

describe('the client transport', () => {
  it('retries a 5xx with backoff and then answers', async () => {
    const latest = await (await fetch(`${api.fresh.url}/api/latest`)).text();
    const s = await scripted([503, 502, 200], (st) => (st === 200 ? latest : 'busy'));
    try {
      const c = createResetStatusClient({ baseUrl: s.url, retries: 2, backoffMs: 10 });
      expect((await c.latest()).data.reset).toBe(true);
      expect(s.hits()).toBe(3);
    } finally {
      await s.close();
    }
  });

  it('gives up after the retries with the status, and never retries a 4xx (the API’s code kept)', async () => {
    const s = await scripted([500], () => 'down');
    try {
      const err = await createResetStatusClient({ baseUrl: s.url, retries: 2, backoffMs: 10 })
        .latest()
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ResetStatusError);
      expect(err).toMatchObject({ code: 'http_error', status: 500 });
      expect(s.hits()).toBe(3);
    } finally {
      await s.close();
    }
    const nf = await scripted([404], ERROR_DOC);
    try {
      const err = await createResetStatusClient({ baseUrl: nf.url, retries: 3, backoffMs: 10 })
        .event('x')
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ name: 'ResetStatusError', code: 'not_found', status: 404 });
      expect(nf.hits()).toBe(1);
    } finally {
      await nf.close();
    }
  });

  it('times out a server that never answers', async () => {
    const s = await startLoopback(() => undefined);
    try {
      const err = await createResetStatusClient({ baseUrl: s.url, retries: 1, backoffMs: 10, timeoutMs: 200 })
        .latest()
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'timeout', status: null });
    } finally {
      await s.close();
    }
  });

  it('asks again with If-None-Match and reads a 304 from its cache', async () => {
    const proxy = await startProxy(api.fresh.url);
    const seen: (string | undefined)[] = [];
    const c = createResetStatusClient({
      baseUrl: proxy.url,
      fetch: async (input, init) => {
        seen.push(new Headers(init?.headers).get('if-none-match') ?? undefined);
        const res = await fetch(input, init);
        seen.push(String(res.status));
        return res;
      },
    });
    try {
      const a = await c.latest();
      const b = await c.latest();
      expect(b.data).toEqual(a.data);
      expect(seen[0]).toBeUndefined();
      expect(seen[1]).toBe('200');
      expect(seen[2]).toMatch(/^W\/"/);
      expect(seen[3]).toBe('304');
    } finally {
      await proxy.close();
    }
  });

  it('judges freshness by its own clock: past meta.stale_after the document is stale', async () => {
    const at = (now: number) => createResetStatusClient({ baseUrl: api.fresh.url, now: () => now }).latest();
    const first = await at(Date.now());
    expect(first.stale).toBe(false);
    const later = await at(Date.parse(first.staleAfter));
    expect(later.stale).toBe(true);
  });
});

describe('the client’s bounds', () => {
  it('refuses a body over the cap, even one sent without a length', async () => {
    const s = await startLoopback((_req: IncomingMessage, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      let sent = 0;
      const push = () => {
        while (sent < 64 && res.write(chunk)) sent++;
        if (sent < 64) res.once('drain', push);
        else res.end();
      };
      push();
    });
    try {
      const err = await createResetStatusClient({ baseUrl: s.url, retries: 0 })
        .latest()
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'invalid_response' });
      expect((err as Error).message).toContain('byte cap');
    } finally {
      await s.close();
    }
  });
});
