// Pure: what an announced, not yet applied, global reset does to the forecast. "We will reset everyone's limits
// at 10am PT today" says more about the next 24 hours than any history can.
import { HOUR_MS } from './climatology.ts';
import { eventMs } from './events.ts';
import type { Event } from './schemas.ts';

/** The model's input: the tracker's `scheduled_reset` (or any announced upcoming reset), times ISO 8601 UTC. */
export interface AnnouncedReset {
  id: string;
  /** When the announcement says it lands; null when it names no time. */
  scheduled_for: string | null;
  announced_at: string;
}

export interface AnnouncementEffect {
  id: string;
  scheduled_for: string | null;
  announced_at: string;
  inside_24h: boolean;
  inside_48h: boolean;
  /** Estimated chance an announced reset follows: (followed + 1) / (sample_size + 2), Laplace's rule of succession. */
  follow_through: number;
  /** Past announcements (in the events known at asOf) followed by a reset, and how many there were. */
  followed: number;
  sample_size: number;
}

/** A scheduled time up to this far in the past still counts while no reset is recorded: rollouts run late. */
export const ANNOUNCEMENT_OVERDUE_GRACE_MS = 6 * HOUR_MS;
/** A recorded global reset this close before the announcement (clock skew between sources) already fulfils it. */
const FULFILLED_TOLERANCE_MS = 60_000;

/**
 * Past announcements of a reset ahead of its effect: global resets known at asOf that carry both an announcement
 * and a later effective time (the reviewed "in the next hour" posts). Every one of them was followed by the reset
 * (that is how it got into the history): an announcement that fell through would not be a row of the ledger,
 * so the estimate leans optimistic and the rule of succession keeps it below certainty.
 */
export function pastAnnouncements(events: readonly Event[], asOfMs: number): { followed: number; sample_size: number } {
  let n = 0;
  for (const e of events) {
    if (e.type !== 'global_reset' || e.announced_at === null || e.effective_at === null || e.time_precision === 'day') continue;
    const announced = Date.parse(e.announced_at);
    const effective = Date.parse(e.effective_at);
    if (effective > announced && effective <= asOfMs) n++;
  }
  return { followed: n, sample_size: n };
}

/**
 * The announcement's effect at asOf, or null when there is none or a global reset at or after its announcement is
 * already recorded (the announcement is spent). A scheduled time in (asOf - grace, asOf + h] is inside horizon h;
 * an announcement without a time is reported but changes no probability.
 */
export function announcementEffect(events: readonly Event[], asOfMs: number, announced: AnnouncedReset | null): AnnouncementEffect | null {
  if (announced === null) return null;
  const announcedMs = Date.parse(announced.announced_at);
  if (!Number.isFinite(announcedMs) || announcedMs > asOfMs) return null;
  const spent = events.some((e) => e.type === 'global_reset' && eventMs(e) >= announcedMs - FULFILLED_TOLERANCE_MS && eventMs(e) <= asOfMs);
  if (spent) return null;
  const scheduledMs = announced.scheduled_for === null ? NaN : Date.parse(announced.scheduled_for);
  const inside = (h: number) => Number.isFinite(scheduledMs) && scheduledMs > asOfMs - ANNOUNCEMENT_OVERDUE_GRACE_MS && scheduledMs <= asOfMs + h * HOUR_MS;
  const past = pastAnnouncements(events, asOfMs);
  return {
    id: announced.id,
    scheduled_for: announced.scheduled_for,
    announced_at: announced.announced_at,
    inside_24h: inside(24),
    inside_48h: inside(48),
    follow_through: (past.followed + 1) / (past.sample_size + 2),
    followed: past.followed,
    sample_size: past.sample_size,
  };
}
