// Paged history (issue #23) as the clients read it: the typed client, the `reset-status` bin and its MCP server follow
// `next` from the newest document through the archived pages of a real build served by the real preview, with the
// requests counted by a proxy; a `next` that leaves /api/history or the API's origin is refused, the pages read are
// capped, a page not archived is the API's 404, and an event published between two requests is neither lost nor
// repeated.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPreview, type PreviewServer } from '../../builder/edge/preview.ts';
import { createResetStatusClient, ResetStatusError } from '../../clients/src/client.ts';
import {
  HISTORY_PAGE_PATTERN as CONTRACT_PAGE_PATTERN,
  HISTORY_PAGE_SIZE as CONTRACT_PAGE_SIZE,
} from '../../builder/contract.ts';
import {
  HISTORY_PAGE_PATTERN,
  HISTORY_PAGE_SIZE,
  MAX_HISTORY_EVENTS,
  MAX_HISTORY_PAGES,
} from '../../clients/src/config.ts';
import { createTempBuild, startLoopback, type LoopbackServer } from '../helpers/build.ts';
import { BIN, runCli, startProxy } from './fixture.ts';

const DAY_MS = 86_400_000;
const NOW = Date.now();
const GLOBALS = 299;
const BANKED = 40;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

interface Rec {
  id: string;
  type: 'global_reset' | 'banked_grant';
  at: number;
}

/** Global resets every 10 days back from yesterday, banked grants between them: distinct times, a known order. */
function records(): Rec[] {
  const out: Rec[] = [];
  for (let i = 0; i < GLOBALS; i++)
    out.push({ id: `pg-g-${String(i).padStart(3, '0')}`, type: 'global_reset', at: NOW - DAY_MS - i * 10 * DAY_MS });
  for (let i = 0; i < BANKED; i++)
    out.push({
      id: `pg-b-${String(i).padStart(3, '0')}`,
      type: 'banked_grant',
      at: NOW - 6 * DAY_MS - i * 10 * DAY_MS,
    });
  return out;
}

/** A data dir shaped like data/: one archive file with these records. */
async function dataDir(list: readonly Rec[]): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'rs-paging-data-'));
  await mkdir(path.join(dir, 'archive'));
  const archive = {
    archive: {
      name: 'paging-test',
      url: 'https://example.invalid/paging',
      license: 'CC0-1.0',
      notice: 'Test records for paged history.',
    },
    records: list.map((r) => ({
      id: r.id,
      type: r.type,
      status: 'archived',
      reason: r.type === 'banked_grant' ? 'banked' : 'other',
      origin: 'ledger',
      time_precision: 'second',
      time_basis: 'announcement',
      announced_at: iso(r.at),
      observed_at: null,
      effective_at: null,
      evidence_text: `Record ${r.id}.`,
      sources: [{ platform: 'X', url: `https://x.com/example/status/${r.at}`, author: 'example' }],
    })),
  };
  await writeFile(path.join(dir, 'archive', 'paging.json'), JSON.stringify(archive));
  return dir;
}

const newestFirst = (list: readonly Rec[], type?: Rec['type']) =>
  list
    .filter((r) => !type || r.type === type)
    .sort((a, b) => b.at - a.at)
    .map((r) => r.id);

const BASE = records();
/** One more global reset, newer than every other: published between two requests of a reader. */
const NEWER: Rec = { id: 'pg-g-new', type: 'global_reset', at: NOW - 3600_000 };
const ALL = newestFirst(BASE);
const GLOBAL = newestFirst(BASE, 'global_reset');

let a: PreviewServer;
let b: PreviewServer;

beforeAll(async () => {
  const [buildA, buildB] = [await createTempBuild(), await createTempBuild()];
  await buildA.build(iso(NOW), [], await dataDir(BASE));
  await buildB.build(iso(NOW), [], await dataDir([...BASE, NEWER]));
  a = await startPreview({ root: buildA.outDir, port: 0 });
  b = await startPreview({ root: buildB.outDir, port: 0 });
}, 120_000);
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

const unique = (ids: readonly string[]) => new Set(ids).size === ids.length;
const ids = (events: readonly { id: string }[]) => events.map((e) => e.id);

describe('the typed client reads history across pages', () => {
  it('the build under test is paged as the contract says: 339 events, 2 archived pages, the newest 139 in the newest document', async () => {
    const doc = (await (await fetch(`${a.url}/api/history`)).json()) as {
      count: number;
      archived_pages: number;
      next: string;
      events: unknown[];
    };
    expect(doc).toMatchObject({ count: GLOBALS + BANKED, archived_pages: 2, next: '/api/history?lang=en&page=2' });
    expect(doc.events).toHaveLength(139);
  });

  it('the client’s page size and page pattern mirror the contract’s (the package imports nothing of builder/)', () => {
    expect(HISTORY_PAGE_SIZE).toBe(CONTRACT_PAGE_SIZE);
    expect(HISTORY_PAGE_PATTERN.source).toBe(CONTRACT_PAGE_PATTERN.source);
    expect(MAX_HISTORY_PAGES).toBe(MAX_HISTORY_EVENTS / HISTORY_PAGE_SIZE + 1);
  });

  it('history({ limit: 250 }) gives the newest 250 in order, each once, crossing two page boundaries in three requests', async () => {
    const proxy = await startProxy(a.url);
    try {
      const h = await createResetStatusClient({ baseUrl: proxy.url }).history({ limit: 250 });
      expect(ids(h.events)).toEqual(ALL.slice(0, 250));
      expect(unique(ids(h.events))).toBe(true);
      expect(proxy.requests).toEqual(['/api/history', '/api/history?lang=en&page=2', '/api/history?lang=en&page=1']);
      expect(h).toMatchObject({ count: GLOBALS + BANKED, truncated: true, pagesRead: 3 });
    } finally {
      await proxy.close();
    }
  });

  it('keeps the type and the language along the chain', async () => {
    const proxy = await startProxy(a.url);
    try {
      const h = await createResetStatusClient({ baseUrl: proxy.url, lang: 'de' }).history({
        type: 'global_reset',
        limit: 250,
      });
      expect(ids(h.events)).toEqual(GLOBAL.slice(0, 250));
      expect(h.events.every((e) => e.type === 'global_reset')).toBe(true);
      expect(proxy.requests).toEqual([
        '/api/history?lang=de&type=global_reset',
        '/api/history?lang=de&type=global_reset&page=1',
      ]);
    } finally {
      await proxy.close();
    }
  });

  it('without a limit reads the newest 100 in one request; the largest limit reads every event once, then stops at next = null', async () => {
    const proxy = await startProxy(a.url);
    try {
      const c = createResetStatusClient({ baseUrl: proxy.url });
      const first = await c.history();
      expect(ids(first.events)).toEqual(ALL.slice(0, 100));
      expect(first.truncated).toBe(true);
      expect(proxy.requests).toHaveLength(1);
      const all = await c.history({ limit: MAX_HISTORY_EVENTS });
      expect(ids(all.events)).toEqual(ALL);
      expect(all).toMatchObject({ truncated: false, pagesRead: 3 });
      expect(proxy.requests).toHaveLength(4);
      await expect(c.history({ limit: MAX_HISTORY_EVENTS + 1 })).rejects.toThrow(RangeError);
    } finally {
      await proxy.close();
    }
  });

  it('an event published between two requests (archiving a new page) is neither lost nor repeated', async () => {
    // Build B is build A plus a newer global reset: its 300 global resets archive page 2, A's 299 only page 1.
    const headB = (await (await fetch(`${b.url}/api/history?type=global_reset`)).json()) as {
      archived_pages: number;
      events: { id: string }[];
    };
    expect(headB.archived_pages).toBe(2);
    expect(headB.events[0]!.id).toBe(NEWER.id);
    const proxy = await startProxy(a.url);
    try {
      const c = createResetStatusClient({
        baseUrl: proxy.url,
        // The API publishes B right after the reader got A's newest document.
        fetch: async (input, init) => {
          const res = await fetch(input, init);
          proxy.target = b.url;
          return res;
        },
      });
      const h = await c.history({ type: 'global_reset', limit: MAX_HISTORY_EVENTS });
      expect(proxy.requests).toEqual([
        '/api/history?type=global_reset',
        '/api/history?lang=en&type=global_reset&page=1',
      ]);
      expect(ids(h.events)).toEqual(GLOBAL);
      expect(h.truncated).toBe(false);
      // The next read sees the new event first, and every older one once.
      const again = await c.history({ type: 'global_reset', limit: MAX_HISTORY_EVENTS });
      expect(ids(again.events)).toEqual([NEWER.id, ...GLOBAL]);
    } finally {
      await proxy.close();
    }
  });

  it('reads each page as any document: conditionally with its ETag (304s the second time), retried on a 5xx', async () => {
    const statuses: number[] = [];
    let failPage = true;
    const flaky = await startLoopback((req: IncomingMessage, res: ServerResponse) => {
      // Page 2 fails once with a 503, as a busy origin would.
      if (failPage && req.url?.includes('page=2')) {
        failPage = false;
        res.writeHead(503).end('busy');
        return;
      }
      const headers: Record<string, string> =
        typeof req.headers['if-none-match'] === 'string' ? { 'if-none-match': req.headers['if-none-match'] } : {};
      fetch(`${a.url}${req.url ?? '/'}`, { headers })
        .then(async (r) => {
          const out: Record<string, string> = {};
          for (const h of ['etag', 'cache-control', 'content-type']) if (r.headers.get(h)) out[h] = r.headers.get(h)!;
          res.writeHead(r.status, out).end(Buffer.from(await r.arrayBuffer()));
        })
        .catch(() => res.writeHead(502).end());
    });
    try {
      const c = createResetStatusClient({
        baseUrl: flaky.url,
        backoffMs: 10,
        fetch: async (input, init) => {
          const res = await fetch(input, init);
          statuses.push(res.status);
          return res;
        },
      });
      const first = await c.history({ limit: 250 });
      expect(statuses).toEqual([200, 503, 200, 200]);
      const second = await c.history({ limit: 250 });
      expect(statuses.slice(4)).toEqual([304, 304, 304]);
      expect(ids(second.events)).toEqual(ids(first.events));
      expect(ids(first.events)).toEqual(ALL.slice(0, 250));
    } finally {
      await flaky.close();
    }
  });

  it('historyPage(n) reads one archived page; a page not archived is the API’s 404 not_found', async () => {
    const c = createResetStatusClient({ baseUrl: a.url });
    const p = await c.historyPage(1, { type: 'global_reset' });
    expect(p).toMatchObject({ page: 1, first_position: 1, next: null });
    expect(ids(p.events)).toEqual(GLOBAL.slice(-100));
    const err = await c.historyPage(3).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResetStatusError);
    expect(err).toMatchObject({ code: 'not_found', status: 404 });
    expect((err as ResetStatusError).url).toContain('page=3');
  });
});

/** Serves doctored history documents at /api/history (by `page`), and passes everything else to `target`. */
async function doctor(
  target: string,
  docs: (page: string | null) => unknown,
): Promise<LoopbackServer & { requests: string[] }> {
  const requests: string[] = [];
  const server = await startLoopback((req: IncomingMessage, res: ServerResponse) => {
    requests.push(req.url ?? '/');
    const url = new URL(req.url ?? '/', 'http://x');
    const body = url.pathname === '/api/history' ? docs(url.searchParams.get('page')) : undefined;
    if (body === undefined) {
      fetch(`${target}${req.url ?? '/'}`)
        .then(async (r) => {
          res.writeHead(r.status, { 'content-type': 'application/json' });
          res.end(Buffer.from(await r.arrayBuffer()));
        })
        .catch(() => res.writeHead(502).end());
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  return Object.assign(server, { requests });
}

describe('the client follows only a next it should', () => {
  it('refuses a next off the origin, outside /api/history, of another type or language, or without an older page', async () => {
    const newest = (await (await fetch(`${a.url}/api/history`)).json()) as Record<string, unknown>;
    let trapped = 0;
    const trapCounting = await startLoopback((_req, res) => {
      trapped++;
      res.writeHead(200).end('{}');
    });
    const trapHost = new URL(trapCounting.url).host;
    const cases = [
      `${trapCounting.url}/api/history?lang=en&page=1`,
      `//${trapHost}/api/history?lang=en&page=1`,
      // Appended to the base URL, this would make the base its user info and the trap its host.
      `@${trapHost}/api/history?lang=en&page=1`,
      `/\\${trapHost}/api/history?lang=en&page=1`,
      'https://evil.example/api/history?lang=en&page=1',
      '/api/latest?lang=en&page=1',
      '/api/history/../latest?lang=en&page=1',
      '/api/%68istory?lang=en&page=1',
      '/api/history?lang=en',
      '/api/history?lang=en&page=01',
      '/api/history?lang=en&page=1&page=2',
      '/api/history?lang=en&type=banked_grant&page=1',
      '/api/history?lang=de&page=1',
      'api/history?lang=en&page=1',
    ];
    try {
      for (const next of cases) {
        const s = await doctor(a.url, () => ({ ...newest, next }));
        try {
          const err = await createResetStatusClient({ baseUrl: s.url, retries: 0 })
            .history({ limit: 300 })
            .catch((e: unknown) => e);
          expect(err, next).toBeInstanceOf(ResetStatusError);
          expect(err, next).toMatchObject({ code: 'invalid_response' });
          expect((err as Error).message, next).toContain('refusing to follow next');
          expect(s.requests, next).toEqual(['/api/history']);
        } finally {
          await s.close();
        }
      }
      expect(trapped).toBe(0);
    } finally {
      await trapCounting.close();
    }
  });

  it('does not follow a redirect from a page (it could leave the origin after next was checked)', async () => {
    const newest = (await (await fetch(`${a.url}/api/history`)).json()) as Record<string, unknown>;
    let trapped = 0;
    const trap = await startLoopback((_req, res) => {
      trapped++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    const s = await startLoopback((req: IncomingMessage, res: ServerResponse) => {
      if (req.url?.includes('page=')) res.writeHead(302, { location: `${trap.url}/api/history?lang=en&page=2` }).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(newest));
    });
    try {
      const err = await createResetStatusClient({ baseUrl: s.url, retries: 0 })
        .history({ limit: 250 })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ResetStatusError);
      expect(err).toMatchObject({ code: 'network' });
      expect(trapped).toBe(0);
    } finally {
      await Promise.all([s.close(), trap.close()]);
    }
  });

  it('refuses a page whose next does not go older (a loop), after reading it once', async () => {
    const newest = (await (await fetch(`${a.url}/api/history`)).json()) as Record<string, unknown>;
    const page2 = (await (await fetch(`${a.url}/api/history?lang=en&page=2`)).json()) as Record<string, unknown>;
    const s = await doctor(a.url, (page) =>
      page === '2' ? { ...page2, next: '/api/history?lang=en&page=2' } : newest,
    );
    try {
      const err = await createResetStatusClient({ baseUrl: s.url })
        .history({ limit: 300 })
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'invalid_response' });
      expect((err as Error).message).toContain('page 2 is not older than page 2');
      expect(s.requests).toEqual(['/api/history', '/api/history?lang=en&page=2']);
    } finally {
      await s.close();
    }
  });

  it('a next to a page that is not archived is the API’s 404 with its code', async () => {
    const newest = (await (await fetch(`${a.url}/api/history`)).json()) as Record<string, unknown>;
    const s = await doctor(a.url, (page) =>
      page === null ? { ...newest, next: '/api/history?lang=en&page=7' } : undefined,
    );
    try {
      const err = await createResetStatusClient({ baseUrl: s.url, retries: 2, backoffMs: 10 })
        .history({ limit: 300 })
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ name: 'ResetStatusError', code: 'not_found', status: 404 });
      expect(s.requests).toEqual(['/api/history', '/api/history?lang=en&page=7']); // a 4xx is final: no retry
    } finally {
      await s.close();
    }
  });

  it('reads no more pages than the limit can need, and never more than the cap, however small the pages', async () => {
    // A hostile API: one event a page and a chain of ten million pages.
    const page = (n: number) => ({
      meta: { lang: 'en' },
      type: null,
      page: n,
      page_size: 100,
      first_position: n,
      next: n > 1 ? `/api/history?lang=en&page=${n - 1}` : null,
      events: [{ id: `e${n}` }],
    });
    const newest = {
      meta: { lang: 'en' },
      type: null,
      count: 9_999_999,
      page_size: 100,
      archived_pages: 9_999_998,
      next: '/api/history?lang=en&page=9999998',
      events: [{ id: 'e-newest' }],
    };
    const s = await doctor(a.url, (p) => (p === null ? newest : page(Number(p))));
    try {
      const small = await createResetStatusClient({ baseUrl: s.url }).history({ limit: 150 });
      expect(small).toMatchObject({ pagesRead: 3, truncated: true });
      expect(s.requests).toHaveLength(3);
      const large = await createResetStatusClient({ baseUrl: s.url }).history({ limit: MAX_HISTORY_EVENTS });
      expect(large).toMatchObject({ pagesRead: MAX_HISTORY_PAGES, truncated: true });
      expect(large.events).toHaveLength(MAX_HISTORY_PAGES);
      expect(s.requests).toHaveLength(3 + MAX_HISTORY_PAGES);
    } finally {
      await s.close();
    }
  });

  it('drops an event a page repeats', async () => {
    const newest = (await (await fetch(`${a.url}/api/history`)).json()) as { events: { id: string }[] } & Record<
      string,
      unknown
    >;
    const page2 = (await (await fetch(`${a.url}/api/history?lang=en&page=2`)).json()) as { events: unknown[] } & Record<
      string,
      unknown
    >;
    // As if an archived event were corrected between two requests and moved across the page boundary.
    const s = await doctor(a.url, (page) =>
      page === '2' ? { ...page2, events: [newest.events.at(-1), ...page2.events] } : page === null ? newest : undefined,
    );
    try {
      const h = await createResetStatusClient({ baseUrl: s.url }).history({ limit: 250 });
      expect(ids(h.events)).toEqual(ALL.slice(0, 250));
    } finally {
      await s.close();
    }
  });
});

describe('reset-status history (the bin)', () => {
  it('--limit 250 reads across pages: the newest 250, each once, three requests', async () => {
    const proxy = await startProxy(a.url);
    try {
      const r = await runCli(['history', '--limit', '250', '--json'], { RESET_STATUS_API_URL: proxy.url });
      expect(r.code).toBe(0);
      const h = JSON.parse(r.stdout) as { count: number; truncated: boolean; events: { id: string }[] };
      expect(ids(h.events)).toEqual(ALL.slice(0, 250));
      expect(h).toMatchObject({ count: GLOBALS + BANKED, truncated: true });
      expect(proxy.requests).toEqual([
        '/api/history?lang=en',
        '/api/history?lang=en&page=2',
        '/api/history?lang=en&page=1',
      ]);
    } finally {
      await proxy.close();
    }
  });

  it('by default prints the newest 100 and says on stderr how to get more; --all prints every event', async () => {
    const env = { RESET_STATUS_API_URL: a.url };
    const r = await runCli(['history'], env);
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(100);
    expect(r.stderr).toContain(`the newest 100 of ${GLOBALS + BANKED} events; --limit N or --all for more`);
    const all = await runCli(['history', '--all', '--json'], env);
    expect(ids((JSON.parse(all.stdout) as { events: { id: string }[] }).events)).toEqual(ALL);
    expect(all.stderr).toBe('');
  });

  it('--page N prints one archived page; a page not archived exits 1 with the API’s code', async () => {
    const env = { RESET_STATUS_API_URL: a.url };
    const p = await runCli(['history', '--type', 'global_reset', '--page', '1', '--json'], env);
    expect(p.code).toBe(0);
    const page = JSON.parse(p.stdout) as { page: number; first_position: number; events: { id: string }[] };
    expect(page).toMatchObject({ page: 1, first_position: 1 });
    expect(ids(page.events)).toEqual(GLOBAL.slice(-100));
    const missing = await runCli(['history', '--page', '9', '--json'], env);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toMatchObject({ error: { code: 'not_found', status: 404 } });
    expect((await runCli(['history', '--page', '9'], env)).stderr).toContain(`not found: /api/history at ${a.url}`);
  });

  it('usage: one of --limit, --all and --page; a limit within the cap', async () => {
    const env = { RESET_STATUS_API_URL: a.url };
    expect((await runCli(['history', '--limit', '5', '--all'], env)).code).toBe(1);
    expect((await runCli(['history', '--limit', '5', '--page', '1'], env)).code).toBe(1);
    const over = await runCli(['history', '--limit', String(MAX_HISTORY_EVENTS + 1)], env);
    expect(over.code).toBe(1);
    expect(over.stderr).toContain(`--limit wants a whole number from 1 to ${MAX_HISTORY_EVENTS}`);
  });
});

describe('reset-status mcp: reset_history', () => {
  it('reads across pages up to limit, and one archived page with page', async () => {
    const client = new Client({ name: 'reset-status-test', version: '0.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp'],
        env: { PATH: process.env.PATH ?? '', RESET_STATUS_API_URL: a.url, LANG: 'C' },
        stderr: 'pipe',
      }),
    );
    const payload = (r: unknown) =>
      JSON.parse((r as { content: { text: string }[] }).content[0]!.text.split('\n\nRules:')[0]!) as Record<
        string,
        unknown
      > & { events: { id: string }[] };
    try {
      const h = payload(await client.callTool({ name: 'reset_history', arguments: { limit: 250 } }));
      expect(ids(h.events)).toEqual(ALL.slice(0, 250));
      expect(h).toMatchObject({ count: GLOBALS + BANKED, truncated: true });
      const p = payload(
        await client.callTool({ name: 'reset_history', arguments: { type: 'global_reset', page: 1, limit: 3 } }),
      );
      expect(p).toMatchObject({ page: 1, first_position: 1, next: null });
      expect(ids(p.events)).toEqual(GLOBAL.slice(-100).slice(0, 3));
      const missing = await client.callTool({ name: 'reset_history', arguments: { page: 9 } });
      expect(missing.isError).toBe(true);
      expect((missing as { content: { text: string }[] }).content[0]!.text).toContain(
        'reset-status error not_found (HTTP 404)',
      );
    } finally {
      await client.close();
    }
  });
});
