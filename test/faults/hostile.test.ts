// Fault injection, hostile sources: one build (the real entry point, builder/main.ts, in a child process) against
// loopback sources that do everything an attacker controlling a source would: bad XML (a 2 MiB attribute run, an
// entity bomb, deep nesting), a flood of 4 pages x 5,000 tracker records, far-future and pre-era dates, markup and
// control characters, javascript: links, credentialed source URLs, and redirects to another host. Pins that the
// build finishes well inside its schedule, takes at most the record cap, publishes nothing far-future, keeps
// status.json small, and that no secret and no javascript: URL reaches any output (dist, state, stdout, stderr).
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUTURE_SKEW_MS } from '../../builder/sources/sanitize.ts';
import { startLoopback, type LoopbackServer } from '../helpers/build.ts';
import { listFiles } from '../helpers/files.ts';
import { buildOutputs, runMain, type MainResult } from '../helpers/main-process.ts';

const AS_OF = '2026-11-21T12:00:00Z';
const MiB = 1024 * 1024;
const BUILD_LIMIT_MS = 120_000;
/** Distinctive, so a search for them cannot hit anything else. */
const SECRETS = {
  user: 'usrSECRETa1b2',
  pass: 'pwSECRETc3d4',
  token: 'tokSECRETe5f6',
  apiKey: 'keySECRETg7h8',
  sig: 'sigSECRETi9j0',
  redirectToken: 'redirSECRETk1',
};

function trackerPage(page: number): string {
  const data = Array.from({ length: 5_000 }, (_, i) => {
    const n = page * 5_000 + i;
    // Newest first: a few far-future records on top (where a sort key would pin them forever), then a flood. One an
    // hour, all older than a day: a first run may read in that much history (a day's worth of new resets would be
    // quarantined by the anomaly rule, test/sources/anomaly.test.ts), so the record cap and the cleaning must act.
    const at =
      n < 20
        ? '9999-12-31T00:00:00Z'
        : n < 30
          ? '2001-01-01T00:00:00Z'
          : new Date(Date.parse(AS_OF) - n * 3_600_000).toISOString();
    const url = n % 7 === 0 ? 'javascript:alert(document.cookie)' : `https://x.test/${n}`;
    // Well-formed and small: 5,000 of them fit under the tracker's 1 MiB page cap, so the record cap must act.
    const text = n % 10 === 0 ? `<script>steal()</script><b>Reset</b> \u0007 ${n}` : `Reset ${n}`;
    return {
      id: `f${n}`,
      reset_type: 'regular',
      announced_at: at,
      text,
      source: { type: 'x_post', author: n % 10 === 0 ? `<i>b</i>${'x'.repeat(100)}` : 'b', url },
    };
  });
  return JSON.stringify({
    data,
    pagination: { has_more: page < 3, next_cursor: page < 3 ? `p${page + 1}` : null },
    meta: { api_version: '1', generated_at: AS_OF },
  });
}

function statusPage(): string {
  return JSON.stringify({
    page: { id: 'p', name: 'Evil', url: 'javascript:alert(1)', updated_at: AS_OF },
    status: { indicator: 'major<script>', description: `<img src=x onerror=alert(1)>Down ${'very '.repeat(20_000)}` },
    components: Array.from({ length: 4_000 }, (_, i) => ({
      id: `c${i}`,
      name: `Codex ${'<b>x</b>'.repeat(5)} ${i}`,
      status: 'major_outage',
    })),
    incidents: Array.from({ length: 300 }, (_, i) => ({
      id: `inc-${i}`,
      name: `Codex incident ${i} ${'!'.repeat(800)}`,
      status: 'investigating',
      shortlink: 'javascript:alert(2)',
      started_at: i % 2 ? '9999-01-01T00:00:00Z' : AS_OF,
    })),
  });
}

const attrRunFeed = (() => {
  const head = '<rss version="2.0"><channel><title>codex</title><item><title>codex reset</title><link';
  return head + ' a="b'.repeat(Math.floor((2 * MiB - 4096 - head.length) / 5));
})();
const lol =
  '<!DOCTYPE lolz [<!ENTITY lol "lol">' +
  Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`).join('') +
  ']>';
const bombFeed = `<?xml version="1.0"?>${lol}<rss version="2.0"><channel><title>codex</title><item><title>Codex reset ${'&lol9;'.repeat(100_000)}</title></item></channel></rss>`;
const deepFeed = `<rss version="2.0"><channel>${'<x>'.repeat(200_000)}`;
const markupFeed = `<rss version="2.0"><channel><title>codex</title>${Array.from(
  { length: 400 },
  (_, i) =>
    `<item><title>&lt;script&gt;x()&lt;/script&gt;Codex reset ${i}</title><link>${i % 2 ? 'javascript:alert(3)' : `https://forum.example.test/${i}`}</link><pubDate>${i % 3 ? 'Sat, 21 Nov 2026 11:00:00 GMT' : 'Fri, 31 Dec 9999 00:00:00 GMT'}</pubDate><description><![CDATA[<a href="javascript:alert(4)">click</a>]]></description></item>`,
).join('')}</channel></rss>`;

describe('a build against hostile sources', () => {
  let sources: LoopbackServer;
  let elsewhere: LoopbackServer;
  let root: string;
  let result: MainResult;
  const authSeen: string[] = [];
  const elsewhereHits: string[] = [];

  beforeAll(async () => {
    const bodies: [string, string][] = [
      ['tracker page', trackerPage(0)],
      ['status page', statusPage()],
    ];
    for (const [name, body] of bodies) expect(body.length, name).toBeLessThan(MiB);
    root = await mkdtemp(path.join(tmpdir(), 'rsa-hostile-'));
    elsewhere = await startLoopback((req, res) => {
      elsewhereHits.push(req.url ?? '');
      res.end(markupFeed);
    });
    const tracker = [0, 1, 2, 3].map(trackerPage);
    const status = statusPage();
    sources = await startLoopback((req: IncomingMessage, res: ServerResponse) => {
      const u = new URL(req.url ?? '/', 'http://x');
      const send = (body: string, type = 'application/json') => {
        res.writeHead(200, { 'content-type': type });
        res.end(body);
      };
      switch (u.pathname) {
        case '/status': {
          authSeen.push(req.headers.authorization ?? '');
          if (
            req.headers.authorization !== `Basic ${Buffer.from(`${SECRETS.user}:${SECRETS.pass}`).toString('base64')}`
          ) {
            res.writeHead(401);
            return void res.end();
          }
          return send(status);
        }
        case '/tracker':
          return send(tracker[Number((u.searchParams.get('cursor') ?? 'p0').slice(1))] ?? tracker[0]!);
        case '/feed/attr-run':
          return send(attrRunFeed, 'application/rss+xml');
        case '/feed/bomb':
          return send(bombFeed, 'application/rss+xml');
        case '/feed/deep':
          return send(deepFeed, 'application/rss+xml');
        case '/feed/markup':
          return send(markupFeed, 'application/rss+xml');
        case '/feed/away':
          res.writeHead(302, { location: `${elsewhere.url}/feed?token=${SECRETS.redirectToken}` });
          return void res.end();
        default:
          res.writeHead(404);
          res.end();
      }
    });
    const base = sources.url;
    const withCreds = base.replace('http://', `http://${SECRETS.user}:${SECRETS.pass}@`);
    const feeds = ['attr-run', 'bomb', 'deep', 'markup', 'away'].map(
      (f, i) => `${base}/feed/${f}?sig=${SECRETS.sig}&n=${i}`,
    );
    result = await runMain(
      ['--now', AS_OF, '--out', path.join(root, 'dist'), '--state-dir', path.join(root, 'state')],
      {
        RESET_STATUS_PAGE_URL: `${withCreds}/status?token=${SECRETS.token}`,
        RESET_UPSTREAM_URL: `${base}/tracker?api_key=${SECRETS.apiKey}`,
        RESET_TIMELINE_URL: '',
        RESET_POST_EMBED_URL: '',
        RESET_SIGNAL_FEEDS: feeds.join(','),
      },
    );
  }, BUILD_LIMIT_MS + 30_000);

  afterAll(async () => {
    await sources?.close();
    await elsewhere?.close();
  });

  it(`finishes in under ${BUILD_LIMIT_MS / 1000} s and publishes`, () => {
    expect(result.stderr).toBe('');
    expect(result.code, result.stdout).toBe(0);
    expect(result.ms).toBeLessThan(BUILD_LIMIT_MS);
    // The credentials went to the status page (as Basic auth), and only there.
    expect(authSeen.at(-1)).toMatch(/^Basic /);
    console.log(`hostile build wall time: ${Math.round(result.ms)} ms\n${result.stdout}`);
  });

  it('names every refusal in the source checks', async () => {
    const status = JSON.parse(await readFile(path.join(root, 'dist/api/en/status.json'), 'utf8')) as {
      source_checks: { source: string; ok: boolean; detail_code: string; url: string }[];
    };
    const by = Object.fromEntries(status.source_checks.map((c) => [c.source, c]));
    expect(by['reset-tracker']).toMatchObject({ ok: true, detail_code: 'record_cap_reached' });
    expect(by['status-page']).toMatchObject({ ok: true, detail_code: 'ok_with_rejections' });
    expect(by['feed-1']).toMatchObject({ ok: false, detail_code: 'body_too_large' });
    expect(by['feed-2']).toMatchObject({ ok: false, detail_code: 'invalid_xml' });
    expect(by['feed-3']).toMatchObject({ ok: false, detail_code: 'too_deeply_nested' });
    expect(by['feed-4']).toMatchObject({ ok: true, detail_code: 'ok_with_rejections' });
    expect(by['feed-5']).toMatchObject({ ok: false, detail_code: 'redirect_not_allowed' });
    expect(by['feed-5']!.url).toBe(`${sources.url}/…`);
    expect(elsewhereHits).toEqual([]);
  });

  it('takes at most the record cap of tracker events, none far-future, and keeps status.json under 200 KB', async () => {
    const files = await listFiles(path.join(root, 'dist'));
    const tracker = files.filter((f) => /^api\/en\/events\/sr-/.test(f));
    expect(tracker.length).toBeGreaterThan(0);
    expect(tracker.length).toBeLessThanOrEqual(1_000);
    const limit = Date.parse(AS_OF) + FUTURE_SKEW_MS;
    const history = JSON.parse(await readFile(path.join(root, 'dist/api/en/history.json'), 'utf8')) as {
      events: { announced_at: string | null; observed_at: string | null; effective_at: string | null }[];
    };
    for (const e of history.events)
      for (const t of [e.announced_at, e.observed_at, e.effective_at])
        if (t) expect(Date.parse(t), t).toBeLessThanOrEqual(limit);
    for (const f of files.filter((x) => /^api\/[a-z]{2}\/status\.json$/.test(x)))
      expect((await stat(path.join(root, 'dist', f))).size, f).toBeLessThan(200 * 1024);
  });

  it('leaves no secret and no javascript: URL in any output: dist, state, stdout, stderr', async () => {
    const outputs = await buildOutputs(root, result);
    expect(outputs.length).toBeGreaterThan(100);
    for (const [name, text] of outputs) {
      for (const secret of Object.values(SECRETS)) expect(text.includes(secret), `${secret} in ${name}`).toBe(false);
      expect(/javascript:/i.test(text), `javascript: in ${name}`).toBe(false);
      // The injected payloads, wherever they might land (the HTML pages carry a script of their own).
      for (const payload of ['steal()', 'onerror=', 'alert('])
        expect(text.includes(payload), `${payload} in ${name}`).toBe(false);
      if (!name.endsWith('.html')) expect(/<script/i.test(text), `<script in ${name}`).toBe(false);
    }
  });
});
