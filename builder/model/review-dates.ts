// Pure: a reviewed decision applies only in builds as of its own date or later. The import bakes decisions into the
// archive; a build as of an earlier instant (`--now`) shows the record as the ledger had it, so an as-of build never
// knows what was decided after it.
import type { EventType } from '../contract.ts';
import type { Event, Reason } from './schemas.ts';

export interface ReviewDate {
  record_id: string;
  /** The decision's date (UTC, YYYY-MM-DD): it applies from 00:00 UTC that day. */
  reviewed_at: string;
  /** What the record was before the decision. */
  before: { type?: EventType; reason?: Reason; effective_at_null?: boolean };
}

/** The events as a build as of `asOf` may know them: decisions reviewed after asOf are undone. */
export function applyReviewDates(events: readonly Event[], reviews: readonly ReviewDate[], asOf: Date): Event[] {
  const pending = new Map(
    reviews.filter((r) => Date.parse(`${r.reviewed_at}T00:00:00Z`) > asOf.getTime()).map((r) => [r.record_id, r]),
  );
  if (pending.size === 0) return [...events];
  return events.map((e) => {
    const r = pending.get(e.id);
    if (r === undefined) return e;
    const { author_notes: _note, ...rest } = e;
    const basis = rest.observed_at !== null ? 'observation' : 'announcement';
    return {
      ...rest,
      ...(r.before.type ? { type: r.before.type } : {}),
      ...(r.before.reason ? { reason: r.before.reason } : {}),
      ...(r.before.effective_at_null ? { effective_at: null, time_basis: basis } : {}),
    };
  });
}
