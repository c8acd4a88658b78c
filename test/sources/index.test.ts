import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Fetcher, SourceConfig } from '../../builder/sources/fetcher.ts';
import { fetchAllSources } from '../../builder/sources/index.ts';
import { AS_OF, fixture, refusedUrl, sendJson, startServer, testFetcher, type TestServer } from './helpers.ts';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
  vi.restoreAllMocks();
});

describe('fetchAllSources', () => {
  it('checks every source, in config order, with failures as values', async () => {
    server = await startServer((req, res) => {
      if (req.url?.startsWith('/status')) sendJson(res, fixture('statuspage-incidentio-summary.json'));
      else if (req.url?.startsWith('/resets')) sendJson(res, fixture('tracker-page-2.json'));
      else {
        res.writeHead(200, { 'content-type': 'application/atom+xml' });
        res.end(fixture('feed-atom.xml'));
      }
    });
    const configs: SourceConfig[] = [
      { id: 'status-page', kind: 'status_page', url: `${server.url}/status` },
      { id: 'reset-tracker', kind: 'reset_tracker', url: `${server.url}/resets` },
      { id: 'feed-1', kind: 'signal_feed', url: `${server.url}/feed` },
      { id: 'feed-2', kind: 'signal_feed', url: await refusedUrl() },
    ];
    const results = await fetchAllSources(configs, testFetcher({ retries: 0 }), AS_OF);
    expect(results.map((r) => [r.check.source, r.check.ok, r.check.detail.code])).toEqual([
      ['status-page', true, 'ok'],
      ['reset-tracker', true, 'ok'],
      ['feed-1', true, 'ok'],
      ['feed-2', false, 'connection_refused'],
    ]);
  });

  it('turns an adapter that throws into a failed check instead of failing the run', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const broken: Fetcher = {
      get: () => Promise.reject(new Error('bug')),
    };
    const [r] = await fetchAllSources(
      [{ id: 'status-page', kind: 'status_page', url: 'http://127.0.0.1:1/' }],
      broken,
      AS_OF,
    );
    expect(r!.check).toMatchObject({
      ok: false,
      http_status: null,
      latency_ms: null,
      detail: { code: 'internal_error' },
    });
  });
});
