// Of a source URL only the scheme and the host are ever published. One real build (builder/main.ts in a child
// process) against loopback sources whose configured URLs carry a secret in every part a URL has: userinfo, path
// segments, a path parameter (`;jsessionid=`), query names and values, the fragment. Some answer, one fails with a
// status, one redirects to another host, one refuses the connection, so every path a URL takes into a check, an
// error or a log line is walked. Pins that none of those strings is in any file of dist/, the state, stdout or stderr.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopback, type LoopbackServer } from '../helpers/build.ts';
import { buildOutputs, runMain, type MainResult } from '../helpers/main-process.ts';
import { fixture, refusedUrl } from '../sources/helpers.ts';

const AS_OF = '2026-11-21T12:00:00Z';
/** Distinctive, so a search for them cannot hit anything else. */
const S = {
  user: 'usrSECRETq1',
  pass: 'pwSECRETq2',
  statusSegment: 'segSECRETstatus',
  trackerSegment: 'segSECRETtracker',
  timelineSegment: 'segSECRETtimeline',
  statusSession: 'jsidSECRETs3',
  trackerStatusSession: 'jsidSECRETt4',
  queryName: 'qnameSECRET5',
  queryValue: 'qvalSECRET6',
  feedSegment: 'segSECRETfeed',
  feedToken: 'tokSECRETf7',
  fragment: 'fragSECRET8',
  redirectSegment: 'segSECRETredir',
  refusedSegment: 'segSECRETrefused',
};
/** Words that would show a path or a query survived even when its value did not. */
const SHAPES = ['jsessionid', 'summary.json', 'api/v1'];

describe('source URLs in a build: scheme and host only', () => {
  let sources: LoopbackServer;
  let elsewhere: LoopbackServer;
  let refused: string;
  let root: string;
  let result: MainResult;
  const served: string[] = [];

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'rsa-source-urls-'));
    elsewhere = await startLoopback((_req, res) => res.end('never asked'));
    refused = (await refusedUrl()).replace(/\/$/, '');
    sources = await startLoopback((req, res) => {
      const p = req.url ?? '';
      served.push(p);
      const send = (body: string, type: string) => {
        res.writeHead(200, { 'content-type': type });
        res.end(body);
      };
      if (p.includes(S.statusSegment)) return send(fixture('statuspage-v2-summary.json'), 'application/json');
      if (p.includes(`${S.trackerSegment}/api/v1/resets`))
        return send(fixture('tracker-page-2.json'), 'application/json');
      if (p.includes(`${S.trackerSegment}/api/v1/status`))
        return send(JSON.stringify({ data: { scheduled_reset: null } }), 'application/json');
      if (p.includes(`${S.timelineSegment}/api/timeline`)) return send('{"events": []}', 'application/json');
      if (p.includes(`${S.feedSegment}/ok`)) return send(fixture('feed-rss.xml'), 'application/rss+xml');
      if (p.includes(S.redirectSegment)) {
        res.writeHead(302, {
          location: `${elsewhere.url}/${S.redirectSegment}/x;jsessionid=${S.statusSession}?${S.queryName}=${S.queryValue}`,
        });
        return void res.end();
      }
      res.writeHead(404);
      res.end();
    });
    const base = sources.url;
    const withCreds = base.replace('http://', `http://${S.user}:${S.pass}@`);
    const query = `${S.queryName}=${S.queryValue}&token=${S.feedToken}`;
    const feeds = [
      `${base}/${S.feedSegment}/ok;jsessionid=${S.statusSession}?${query}#${S.fragment}`,
      `${base}/${S.feedSegment}/missing?${query}`,
      `${base}/${S.redirectSegment}?${query}`,
      `${refused}/${S.refusedSegment};jsessionid=${S.trackerStatusSession}?${query}`,
    ];
    result = await runMain(
      ['--now', AS_OF, '--out', path.join(root, 'dist'), '--state-dir', path.join(root, 'state')],
      {
        RESET_STATUS_PAGE_URL: `${withCreds}/${S.statusSegment}/summary.json;jsessionid=${S.statusSession}?${query}`,
        RESET_UPSTREAM_URL: `${base}/${S.trackerSegment}/api/v1/resets?${query}`,
        RESET_UPSTREAM_STATUS_URL: `${withCreds}/${S.trackerSegment}/api/v1/status;jsessionid=${S.trackerStatusSession}?${query}`,
        RESET_TIMELINE_URL: `${withCreds}/${S.timelineSegment}/api/timeline;jsessionid=${S.statusSession}?${query}#${S.fragment}`,
        RESET_SIGNAL_FEEDS: feeds.join(','),
      },
    );
  }, 90_000);

  afterAll(async () => {
    await sources?.close();
    await elsewhere?.close();
  });

  it('builds, having read each source at its full configured address', () => {
    expect(result.code, result.stderr + result.stdout).toBe(0);
    // The secrets were used, not dropped on the way in: each source was asked at its secret path and query.
    for (const part of [
      S.statusSegment,
      S.trackerSegment,
      S.timelineSegment,
      `${S.feedSegment}/ok;jsessionid=${S.statusSession}?${S.queryName}=${S.queryValue}`,
    ]) {
      expect(
        served.some((p) => p.includes(part)),
        part,
      ).toBe(true);
    }
  });

  it('shows every source check as scheme, host and port only', async () => {
    const status = JSON.parse(await readFile(path.join(root, 'dist/api/en/status.json'), 'utf8')) as {
      source_checks: { source: string; ok: boolean; detail_code: string; detail: string; url: string }[];
    };
    const by = Object.fromEntries(status.source_checks.map((c) => [c.source, c]));
    expect(Object.keys(by).sort()).toEqual([
      'feed-1',
      'feed-2',
      'feed-3',
      'feed-4',
      'reset-timeline',
      'reset-tracker',
      'status-page',
      'tracker-status',
    ]);
    for (const id of ['status-page', 'reset-tracker', 'tracker-status', 'reset-timeline', 'feed-1', 'feed-2', 'feed-3'])
      expect(by[id]!.url, id).toBe(`${sources.url}/…`);
    expect(by['feed-4']!.url).toBe(`${refused}/…`);
    expect(by['feed-1']).toMatchObject({ ok: true });
    expect(by['reset-timeline']).toMatchObject({ ok: true });
    expect(by['feed-2']).toMatchObject({ ok: false, detail_code: 'http_status' });
    expect(by['feed-3']).toMatchObject({ ok: false, detail_code: 'redirect_not_allowed' });
    expect(by['feed-3']!.detail).toContain(`${elsewhere.url}/…`);
    expect(by['feed-4']).toMatchObject({ ok: false, detail_code: 'connection_refused' });
  });

  it('leaves no part of a source URL but scheme and host in dist/, the state, stdout or stderr', async () => {
    const outputs = await buildOutputs(root, result);
    expect(outputs.filter(([n]) => n.startsWith('state/')).length).toBeGreaterThan(0);
    expect(outputs.length).toBeGreaterThan(100);
    for (const [name, text] of outputs) {
      for (const secret of [...Object.values(S), ...SHAPES])
        expect(text.includes(secret), `${secret} in ${name}`).toBe(false);
    }
  });
});
