import { describe, expect, it } from 'vitest';
import { mergeEvents } from '../../builder/model/events.ts';
import { citedPost, snowflakeMs, xPostId } from '../../builder/model/evidence.ts';
import { loadCuratedData } from '../../builder/sources/archive.ts';

const DATA = new URL('../../data', import.meta.url).pathname;

describe('X post times (snowflake ids)', () => {
  it('decodes the creation time from the id, beyond 2^53', () => {
    // (2092311059197808936 >> 22) + 1288834974657 = 1787680804429 ms = 2026-08-25T18:00:04.429Z
    expect(snowflakeMs('2092311059197808936')).toBe(1787680804429);
    expect(citedPost([{ url: 'https://x.com/a/status/2092311059197808936' }])?.at).toBe('2026-08-25T18:00:04Z');
  });

  it('reads post ids from x.com and twitter.com status URLs only', () => {
    expect(xPostId('https://twitter.com/a/status/2097174560412246215/')).toBe('2097174560412246215');
    expect(xPostId('https://mobile.x.com/a/status/2097174560412246215?s=20')).toBe('2097174560412246215');
    expect(xPostId('https://example.com/a/status/2097174560412246215')).toBeNull();
    expect(xPostId('https://x.com/a')).toBeNull();
  });

  it('in a build of the bundled history, every event citing an X post has announced_at within 60 s of the post', async () => {
    const events = mergeEvents((await loadCuratedData(DATA)).events);
    const citing = events.filter((e) => citedPost(e.sources) !== null);
    expect(citing.length).toBeGreaterThan(50);
    for (const e of citing) {
      const post = citedPost(e.sources)!;
      expect(e.announced_at, e.id).not.toBeNull();
      expect(Math.abs(Date.parse(e.announced_at!) - post.ms), `${e.id} vs post ${post.id}`).toBeLessThanOrEqual(60_000);
    }
    const byPost = (id: string) => events.find((e) => citedPost(e.sources)?.id === id)!;
    expect(byPost('2092311059197808936')).toMatchObject({
      announced_at: '2026-08-25T18:00:04Z',
      observed_at: '2026-08-25T14:30:00Z',
    });
    expect(byPost('2097174560412246215')).toMatchObject({
      announced_at: '2026-09-08T04:05:53Z',
      observed_at: '2026-09-08T01:56:57Z',
    });
    expect(byPost('2071381664853319742')).toMatchObject({ announced_at: '2026-06-28T23:54:07Z', type: 'global_reset' });
  });

  it('the 2026-06-29 reset announced for the next hour belongs to 2026-06-30, its window end', async () => {
    const events = mergeEvents((await loadCuratedData(DATA)).events);
    expect(events.find((e) => e.id === 'ledger-2026-06-29-2339')).toMatchObject({
      type: 'global_reset',
      time_basis: 'effective',
      announced_at: '2026-06-29T23:39:41Z',
      effective_at: '2026-06-30T00:39:41Z',
    });
  });
});
