// Pure: who to credit for the data a document shows. codex-resets.com asks everyone who shows its data to link back to
// it; a document holding anything from its API (a tracker record, its announced reset, its watch) names it with a link.
import type { Event } from '../model/schemas.ts';

export interface Credit {
  name: string;
  url: string;
}

export const TRACKER_CREDIT: Credit = { name: 'codex-resets.com', url: 'https://codex-resets.com/' };

/** A tracker record (origin service_resets) came from the tracker's API. */
export const fromTracker = (e: Event): boolean => e.origin === 'service_resets';

/** The credits of a document showing `events`, and `trackerData` when it also shows the tracker's announcement or watch. */
export function creditsFor(events: Iterable<Event>, trackerData = false): Credit[] {
  if (trackerData) return [TRACKER_CREDIT];
  for (const e of events) if (fromTracker(e)) return [TRACKER_CREDIT];
  return [];
}
