// Identity: a tracker id maps to the same API id on every run, whatever the case of its
// neighbours and the order records arrive in, through the real pipeline and a loopback tracker.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempBuild, startLoopback, trackerHandler, type LoopbackServer } from '../helpers/build.ts';

const hash8 = (raw: string) => createHash('sha256').update(raw).digest('hex').slice(0, 8);
const record = (id: string, minute: number) => ({
  id,
  reset_type: 'regular',
  announced_at: `2026-11-21T0${Math.floor(minute / 60)}:${String(minute % 60).padStart(2, '0')}:00Z`,
  text: `Reset ${id}.`,
  source: { type: 'observed', url: `https://tracker.example/r/${encodeURIComponent(id)}` },
});
const RECORDS = [record('A', 10), record('a', 20), record('RST 2026/11/18', 30), record('b', 40)];

let tracker: LoopbackServer;
let order: 'forward' | 'reverse' = 'forward';
beforeAll(async () => {
  tracker = await startLoopback(trackerHandler(() => (order === 'forward' ? RECORDS : [...RECORDS].reverse())));
});
afterAll(async () => tracker?.close());

describe('tracker ids are a function of the upstream id alone', () => {
  it('ids differing only by case stay two records, with the same API ids when the order changes', async () => {
    const b = await createTempBuild();
    const sources = [{ id: 'reset-tracker', kind: 'reset_tracker' as const, url: `${tracker.url}/api/v1/resets` }];
    const idsOf = async () => {
      const state = JSON.parse(await readFile(path.join(b.stateDir, 'state.json'), 'utf8')) as {
        upstream_events: { id: string; evidence_text: string }[];
      };
      return Object.fromEntries(state.upstream_events.map((e) => [e.evidence_text, e.id]));
    };
    order = 'forward';
    expect((await b.build('2026-11-21T12:00:00Z', sources)).sources[0]).toMatchObject({ ok: true });
    const first = await idsOf();
    // The documented rule: an id already in our alphabet is kept; any other gets its sanitised form and a hash of the exact original.
    expect(first).toEqual({
      'Reset A.': `sr-a-${hash8('A')}`,
      'Reset a.': 'sr-a',
      'Reset RST 2026/11/18.': `sr-rst-2026-11-18-${hash8('RST 2026/11/18')}`,
      'Reset b.': 'sr-b',
    });
    order = 'reverse';
    await b.build('2026-11-21T12:15:00Z', sources);
    expect(await idsOf()).toEqual(first);
    const files = await readdir(path.join(b.outDir, 'api', 'en', 'events'));
    for (const id of Object.values(first)) expect(files).toContain(`${id}.json`);
  });
});
