// The wiring from the environment: RESET_UPSTREAM_URL's derived status URL, RESET_PUBLIC_BASE_URL, RESET_NOTIFY_WEBHOOKS
// and RESET_NOTIFY_LANG, through runBuild as the scheduled job calls it.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatSummary, runBuild } from '../../builder/main.ts';
import { DATA_DIR, startLoopback, type LoopbackServer } from '../helpers/build.ts';

let tracker: LoopbackServer;
let hook: LoopbackServer;
const bodies: any[] = [];
const paths: string[] = [];

beforeAll(async () => {
  tracker = await startLoopback((req, res) => {
    paths.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url?.startsWith('/v1/status')) {
      res.end(
        JSON.stringify({
          data: {
            scheduled_reset: {
              id: 'soon',
              status: 'scheduled',
              reset_type: 'regular',
              announced_at: '2026-11-21T11:00:00Z',
              scheduled_for: null,
              text: 'Soon.',
              source: { type: 'x_post', url: 'https://x.com/a/status/9' },
            },
          },
        }),
      );
    } else {
      res.end(JSON.stringify({ data: [], pagination: { has_more: false, next_cursor: null } }));
    }
  });
  hook = await startLoopback((req, res) => {
    let b = '';
    req.on('data', (c: Buffer) => (b += c.toString('utf8')));
    req.on('end', () => {
      bodies.push(JSON.parse(b));
      res.writeHead(200);
      res.end();
    });
  });
});
afterAll(async () => {
  await tracker?.close();
  await hook?.close();
});

describe('runBuild', () => {
  it('reads the announced reset from the derived status URL and notifies in RESET_NOTIFY_LANG, logging no secret', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'rsa-main-'));
    const logged: string[] = [];
    // io.now is the wall clock (it sets the fetch deadline); the run's instant is opts.now.
    const io = {
      now: () => new Date(),
      out: (l: string) => void logged.push(l),
      err: (l: string) => void logged.push(l),
    };
    {
      const summary = await runBuild(
        {
          now: new Date('2026-11-21T12:00:00Z'),
          outDir: path.join(root, 'dist'),
          stateDir: path.join(root, 'state'),
          dataDir: DATA_DIR,
          target: 'local',
          rebuildPast: false,
        },
        {
          RESET_STATUS_PAGE_URL: '',
          RESET_SIGNAL_FEEDS: '',
          RESET_UPSTREAM_URL: `${tracker.url}/v1/resets`,
          RESET_TIMELINE_URL: '',
          RESET_POST_EMBED_URL: '',
          RESET_PUBLIC_BASE_URL: 'https://api.example.test/',
          RESET_NOTIFY_WEBHOOKS: `${hook.url}/secret-path-123, not-a-url-secret-456`,
          RESET_NOTIFY_LANG: 'ko',
        },
        io,
      );
      logged.push(formatSummary(summary));
      expect(summary.notifications).toEqual({ sent: 1, failed: 0, skipped: 0 });
    }
    expect(paths.some((p) => p.startsWith('/v1/status'))).toBe(true);
    expect(bodies).toEqual([
      expect.objectContaining({
        kind: 'announcement',
        id: 'sr-soon',
        lang: 'ko',
        links: { api: 'https://api.example.test/api/latest?lang=ko', source: 'https://x.com/a/status/9' },
      }),
    ]);
    const latest = JSON.parse(await readFile(path.join(root, 'dist', 'api', 'ko', 'latest.json'), 'utf8'));
    expect(latest.upcoming).toMatchObject({ id: 'sr-soon', scheduled_for: null });
    expect(logged.join('\n')).toContain('notifications: 1 sent');
    expect(logged.join('\n')).toContain('entry 2');
    expect(logged.join('\n')).not.toMatch(/secret-path-123|not-a-url-secret-456/);
  });
});
