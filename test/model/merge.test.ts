import { describe, expect, it } from 'vitest';
import { MERGE_WINDOW_MS, mergeEvents } from '../../builder/model/events.ts';
import type { Event } from '../../builder/model/schemas.ts';
import { testEvent } from '../helpers/events.ts';

const rec = (id: string, at: string, origin: Event['origin'], over: Partial<Event> = {}): Event => ({
  ...testEvent(at),
  id,
  origin,
  sources: [{ platform: 'web', url: `https://example.org/${id}` }],
  ...over,
});

describe('mergeEvents rules', () => {
  it('same id listed in same_as: one event', () => {
    const a = rec('a', '2026-07-01T10:00:00Z', 'ledger');
    const b = rec('b', '2026-07-05T10:00:00Z', 'curated', { same_as: ['a'] });
    expect(mergeEvents([a, b])).toHaveLength(1);
  });

  it('same source post URL (x.com and twitter.com alike): one event', () => {
    const a = rec('a', '2026-07-01T10:00:00Z', 'ledger', {
      sources: [{ platform: 'X', url: 'https://x.com/u/status/5' }],
    });
    const b = rec('b', '2026-07-03T10:00:00Z', 'ledger', {
      sources: [{ platform: 'X', url: 'https://twitter.com/u/status/5/' }],
    });
    expect(mergeEvents([a, b])).toHaveLength(1);
  });

  it('proximity: different origins, same type, within the window: one event, the better record wins and absorbs the other', () => {
    const a = rec('ledger-a', '2026-07-01T10:00:00Z', 'ledger');
    const b = rec('sr-b', '2026-07-01T12:30:00Z', 'service_resets', {
      time_basis: 'observation',
      announced_at: null,
      observed_at: '2026-07-01T12:30:00Z',
    });
    const merged = mergeEvents([a], [b]);
    expect(merged).toHaveLength(1);
    expect(merged[0]).toMatchObject({ id: 'ledger-a', same_as: ['sr-b'] });
    // The tracker's link does not join the ledger's sources (it cannot vouch for curated history).
    expect(merged[0]!.sources.map((s) => s.url)).toEqual(['https://example.org/ledger-a']);
  });

  it('proximity: just outside the window stays two events', () => {
    const a = rec('a', '2026-07-01T10:00:00Z', 'ledger');
    const b = rec(
      'b',
      new Date(Date.parse('2026-07-01T10:00:00Z') + MERGE_WINDOW_MS + 1000).toISOString(),
      'service_resets',
    );
    expect(mergeEvents([a, b])).toHaveLength(2);
  });

  it('proximity never joins records of the same origin (one source listing two resets an hour apart)', () => {
    expect(
      mergeEvents([rec('a', '2026-07-01T10:00:00Z', 'ledger'), rec('b', '2026-07-01T11:00:00Z', 'ledger')]),
    ).toHaveLength(2);
  });

  it('proximity never joins different kinds (a banked grant beside a global reset)', () => {
    const a = rec('a', '2026-07-01T10:00:00Z', 'ledger');
    const b = rec('b', '2026-07-01T10:05:00Z', 'service_resets', { type: 'banked_grant', reason: 'banked' });
    expect(mergeEvents([a, b])).toHaveLength(2);
  });

  it('proximity does not chain two resets of one origin through a record between them: the closest pair wins', () => {
    const a = rec('a', '2026-07-01T10:00:00Z', 'ledger');
    const c = rec('c', '2026-07-01T14:00:00Z', 'ledger');
    const b = rec('b', '2026-07-01T12:30:00Z', 'service_resets');
    const merged = mergeEvents([a, c], [b]);
    expect(merged).toHaveLength(2);
    expect(merged.find((e) => e.id === 'c')!.same_as).toEqual(['b']);
  });

  it('day-precision records merge only by id or URL', () => {
    const a = { ...rec('a', '2026-07-01T10:00:00Z', 'ledger') };
    const b = rec('b', '2026-07-01T00:00:00Z', 'curated', { time_precision: 'day', announced_at: '2026-07-01' });
    expect(mergeEvents([a, b])).toHaveLength(2);
  });
});
