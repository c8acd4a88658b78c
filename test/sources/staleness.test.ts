// Today's state over consecutive real runs against a real tracker on loopback that goes down and comes back.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempBuild, startLoopback, trackerHandler, type LoopbackServer } from '../helpers/build.ts';

let tracker: LoopbackServer;
let up = true;
beforeAll(async () => {
  tracker = await startLoopback((req, res) => {
    if (up) return trackerHandler(() => [])(req, res);
    res.writeHead(500);
    res.end('boom');
  });
});
afterAll(() => tracker.close());

describe('staleness over consecutive runs', () => {
  it('holds until 29:59 after the last good check, is unknown from 30:00 (as the edge reads stale_after), and one good check brings it back', async () => {
    const b = await createTempBuild();
    const sources = [{ id: 'reset-tracker', kind: 'reset_tracker' as const, url: `${tracker.url}/api/v1/resets` }];
    const latest = async () => JSON.parse(await readFile(path.join(b.outDir, 'api/en/latest.json'), 'utf8'));

    up = true;
    expect((await b.build('2026-11-21T10:00:00.000Z', sources)).today).toBe('no_verified_reset');
    up = false;
    const before30 = await b.build('2026-11-21T10:29:59.000Z', sources);
    expect(before30.sources[0]).toMatchObject({ ok: false });
    expect(before30.today).toBe('no_verified_reset');
    expect((await latest()).reset).toBe(false);
    expect((await b.build('2026-11-21T10:30:00.000Z', sources)).today).toBe('unknown');
    expect((await latest()).reset).toBeNull();
    expect((await latest()).today.last_good_check_at).toBe('2026-11-21T10:00:00Z');
    up = true;
    expect((await b.build('2026-11-21T10:32:00.000Z', sources)).today).toBe('no_verified_reset');
    const back = await latest();
    expect(back.reset).toBe(false);
    expect(back.today.last_good_check_at).toBe('2026-11-21T10:32:00Z');
  });

  it('a tracker record for today makes the day recorded_today, and it stays so while the tracker is down', async () => {
    const b = await createTempBuild();
    const record = {
      id: 'r-2026-11-21-a',
      reset_type: 'regular',
      announced_at: '2026-11-21T09:15:00Z',
      text: 'We have reset Codex rate limits for everyone.',
      source: { type: 'x_post', author: 'someone', url: 'https://x.com/someone/status/999000111' },
    };
    const t = await startLoopback(trackerHandler(() => [record]));
    try {
      const sources = [{ id: 'reset-tracker', kind: 'reset_tracker' as const, url: `${t.url}/api/v1/resets` }];
      expect((await b.build('2026-11-21T10:00:00.000Z', sources)).today).toBe('recorded_today');
      await t.close();
      // The tracker is gone: its last good data is kept, so the recorded reset is not lost.
      const later = await b.build('2026-11-21T11:00:00.000Z', sources);
      expect(later.sources[0]?.ok).toBe(false);
      expect(later.today).toBe('recorded_today');
      const doc = JSON.parse(await readFile(path.join(b.outDir, 'api/ko/latest.json'), 'utf8'));
      expect(doc.reset).toBe(true);
      expect(doc.latestReset.id).toBe('sr-r-2026-11-21-a');
      expect(doc.latestReset.origin).toBe('service_resets');
      expect(doc.latestReset.evidence_text).toBe(record.text);
    } finally {
      await t.close().catch(() => {});
    }
  });
});
