// A run with a receiver that is down publishes anyway, reports the failure, and delivers on a later run.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseChannel } from '../../builder/notify/channels.ts';
import { createNotifier } from '../../builder/notify/send.ts';
import { createLocalSink } from '../../builder/publish/local-sink.ts';
import { formatSummary } from '../../builder/main.ts';
import { run } from '../../builder/run.ts';
import { createHttpFetcher } from '../../builder/sources/http-fetcher.ts';
import { createLocalStateStore } from '../../builder/state/local-store.ts';
import { DATA_DIR, startLoopback, trackerHandler, type LoopbackServer } from '../helpers/build.ts';

let tracker: LoopbackServer;
let hook: LoopbackServer;
let hookUp = false;
let delivered = 0;

beforeAll(async () => {
  tracker = await startLoopback(
    trackerHandler(() => [
      {
        id: 'r1',
        reset_type: 'regular',
        announced_at: '2026-11-21T08:00:00Z',
        text: 'Reset.',
        source: { type: 'observed', url: 'https://t.example/r1' },
      },
    ]),
  );
  hook = await startLoopback((req, res) => {
    req.resume();
    req.on('end', () => {
      if (hookUp) delivered++;
      res.writeHead(hookUp ? 200 : 500);
      res.end();
    });
  });
});
afterAll(async () => {
  await tracker?.close();
  await hook?.close();
});

describe('notifications in a run', () => {
  it('a failing receiver never fails the build; the delivery is retried on the next run and then recorded once', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'rsa-notify-'));
    const channel = parseChannel(`${hook.url}/h`)!;
    const build = (now: string) =>
      run({
        now: () => new Date(now),
        fetcher: createHttpFetcher({ timeoutMs: 2_000, retries: 0, deadline: Date.now() + 10_000 }),
        sources: [{ id: 'reset-tracker', kind: 'reset_tracker', url: `${tracker.url}/api/v1/resets` }],
        store: createLocalStateStore(path.join(root, 'state'), { now: () => new Date(now) }),
        sink: createLocalSink(path.join(root, 'dist')),
        dataDir: DATA_DIR,
        notify: { notifier: createNotifier([channel], { timeoutMs: 1_000, retries: 0 }), lang: 'en' },
      });
    const down = await build('2026-11-21T12:00:00Z');
    expect(down.notifications).toEqual({ sent: 0, failed: 1, skipped: 0 });
    expect(down.published?.written).toBeGreaterThan(0);
    expect(formatSummary(down)).toContain('notifications: 0 sent, 1 failed');
    const state = JSON.parse(await readFile(path.join(root, 'state', 'state.json'), 'utf8'));
    expect(state.notifications.failed).toEqual([
      { channel: channel.id, key: 'reset:sr-r1', first_failed_at: '2026-11-21T12:00:00.000Z', attempts: 1 },
    ]);
    hookUp = true;
    expect((await build('2026-11-21T12:15:00Z')).notifications).toEqual({ sent: 1, failed: 0, skipped: 0 });
    expect((await build('2026-11-21T12:30:00Z')).notifications).toEqual({ sent: 0, failed: 0, skipped: 0 });
    expect(delivered).toBe(1);
  });
});
