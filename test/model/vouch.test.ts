// A tracker cannot vouch for curated history: built with the real pipeline from the bundled ledger and a loopback
// tracker, a tracker record merged into a ledger event leaves that event's sources alone, and a tracker record of another
// type that cites the ledger's own post takes the ledger's type (one post, one event) and waits as a signal.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergeEvents } from '../../builder/model/events.ts';
import type { Event } from '../../builder/model/schemas.ts';
import { createTempBuild, startLoopback, trackerHandler, type LoopbackServer } from '../helpers/build.ts';
import { testEvent } from '../helpers/events.ts';

// In data/archive/codex-reset-ledger.json: a global reset announced 2026-09-12T03:20:36Z by this post.
const LEDGER_ID = 'ledger-2026-09-12-0320';
const LEDGER_POST = 'https://x.com/thsottiaux/status/2098612714704891959';

let tracker: LoopbackServer;
beforeAll(async () => {
  tracker = await startLoopback(
    trackerHandler(() => [
      // Forty minutes after the ledger's reset, another link: the proximity rule joins them.
      {
        id: 'near',
        reset_type: 'regular',
        announced_at: '2026-09-12T04:00:00Z',
        text: 'Limits reset, trust me.',
        source: { type: 'observed', url: 'https://tracker.example/claims/near' },
      },
      // The very post the ledger cites, as a banked grant.
      {
        id: 'banked-same-post',
        reset_type: 'banked',
        announced_at: '2026-09-12T03:20:36Z',
        text: 'Banked reset for Plus.',
        source: { type: 'x_post', url: LEDGER_POST },
      },
    ]),
  );
});
afterAll(async () => tracker?.close());

type Doc = { event: { id: string; type: string; same_as: string[]; sources: { url: string }[] } };
const readDoc = async (dir: string, id: string) =>
  JSON.parse(await readFile(path.join(dir, 'api', 'en', 'events', `${id}.json`), 'utf8')) as Doc;

describe('merging tracker records into curated history', () => {
  it("keeps a ledger event to its own sources; a record of another type citing the ledger's post takes the ledger's type and is asked about", async () => {
    const b = await createTempBuild();
    const summary = await b.build('2026-09-12T12:00:00Z', [
      { id: 'reset-tracker', kind: 'reset_tracker', url: `${tracker.url}/api/v1/resets` },
    ]);
    expect(summary.sources[0]).toMatchObject({ ok: true });
    const ledger = await readDoc(b.outDir, LEDGER_ID);
    expect(ledger.event.type).toBe('global_reset');
    expect(ledger.event).toMatchObject({ same_as: ['sr-banked-same-post', 'sr-near'] });
    expect(ledger.event.sources.map((s) => s.url)).toEqual([LEDGER_POST]);
    await expect(readDoc(b.outDir, 'sr-banked-same-post')).rejects.toThrow(/ENOENT/);
    const signals = JSON.parse(await readFile(path.join(b.outDir, 'api', 'en', 'signals.json'), 'utf8')) as {
      signals: { id: string; kind: string; curated_type?: string; tracker_type?: string }[];
    };
    expect(signals.signals).toContainEqual(
      expect.objectContaining({
        id: 'type-disagreement-2098612714704891959',
        kind: 'type_disagreement',
        curated_type: 'global_reset',
        tracker_type: 'banked_grant',
      }),
    );
  });

  it('a tracker record still adds its link to another tracker record it merges with', () => {
    const a = {
      ...testEvent('2026-07-01T10:00:00Z'),
      id: 'sr-a',
      origin: 'service_resets' as const,
      sources: [{ platform: 'web', url: 'https://t.example/a' }],
      same_as: ['sr-b'],
    };
    const b: Event = {
      ...testEvent('2026-07-01T10:10:00Z'),
      id: 'sr-b',
      origin: 'service_resets',
      sources: [{ platform: 'web', url: 'https://t.example/b' }],
    };
    expect(mergeEvents([a, b])[0]!.sources.map((s) => s.url)).toEqual(['https://t.example/a', 'https://t.example/b']);
  });
});
