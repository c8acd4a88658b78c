import { beforeAll, describe, expect, it } from 'vitest';
import { applyReviewDates } from '../../builder/model/events.ts';
import type { Event } from '../../builder/model/schemas.ts';
import { loadCuratedData, type CuratedData } from '../../builder/sources/archive.ts';

describe('review decisions apply only in builds as of their own date or later', () => {
  let curated: CuratedData;
  const byId = (events: readonly Event[], id: string) => events.find((e) => e.id === id)!;
  beforeAll(async () => {
    curated = await loadCuratedData(new URL('../../data', import.meta.url).pathname);
  });

  it('as of the day before a decision, the record is what the ledger said; from its date on, the decision holds', () => {
    const reviews = curated.review_dates ?? [];
    // 2026-06-28: reclassified banked -> global reset on 2026-11-23.
    const before = applyReviewDates(curated.events, reviews, new Date('2026-11-22T23:59:59Z'));
    const after = applyReviewDates(curated.events, reviews, new Date('2026-11-23T00:00:00Z'));
    expect(byId(before, 'ledger-2026-06-28-2354')).toMatchObject({ type: 'banked_grant', reason: 'banked' });
    expect(byId(before, 'ledger-2026-06-28-2354').author_notes).toBeUndefined();
    expect(byId(after, 'ledger-2026-06-28-2354')).toMatchObject({ type: 'global_reset', reason: 'incident' });
    // 2026-06-29: the announced window (effective 2026-06-30T00:39:41Z) was re-reviewed on 2026-11-24.
    expect(byId(after, 'ledger-2026-06-29-2339')).toMatchObject({ effective_at: null, time_basis: 'announcement' });
    const later = applyReviewDates(curated.events, reviews, new Date('2026-11-24T00:00:00Z'));
    expect(byId(later, 'ledger-2026-06-29-2339')).toMatchObject({
      effective_at: '2026-06-30T00:39:41Z',
      time_basis: 'effective',
    });
    expect(later).toEqual(curated.events);
  });
});
