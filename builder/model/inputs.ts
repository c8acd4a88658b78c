// What the model takes in from the adapters: one run's source results and the curated review decisions. Owned here,
// so the pure model depends on nothing outside itself; the sources produce these shapes.
import { z } from 'zod';
import { EventIdSchema } from './schemas.ts';
import type {
  Announcement,
  Event,
  PostRead,
  Signal,
  SourceCheck,
  SourceLabel,
  TrackerWatch,
  UpstreamStatus,
} from './schemas.ts';

/** What one source produced in one run; data fields only when the check succeeded. */
export interface SourceResult {
  check: SourceCheck;
  events?: Event[];
  status?: UpstreamStatus;
  signals?: Signal[];
  /** The tracker's announced reset and its own watch (`tracker_status`): null for none, absent when not read. */
  announcement?: Announcement | null;
  watch?: TrackerWatch | null;
  /** The number of resets the tracker says it holds (`stats.total` of its status), to compare with the records read. */
  stats_total?: number;
  /** A reset tracker's label for every record it listed (reset or not), to compare the trackers post by post. */
  labels?: SourceLabel[];
}

/** One run's reads of official posts (the `post_embed` source): one check for the run, one read per post asked. */
export interface PostReadResult {
  check: SourceCheck;
  reads: Omit<PostRead, 'attempts' | 'next_try_at'>[];
}

/** An imported archive of data/archive/ as /api/status and the license text name it. */
export interface ArchiveInfo {
  name: string;
  url: string;
  notice: string;
  /** data/LICENSE-<name>.txt when present, served at /api/license.txt. */
  license_text?: string;
  records: number;
  since: string | null;
}

/** A reviewer's decision on a signal, kept in data/reviews (git review is the verification). */
export const ReviewDecisionSchema = z
  .strictObject({
    signal_id: z.string().min(1),
    decision: z.enum(['dismissed', 'promoted']),
    event_id: EventIdSchema.optional(),
    reviewed_by: z.string().min(1),
    note: z.string().optional(),
  })
  .refine((d) => d.decision !== 'promoted' || !!d.event_id, {
    path: ['event_id'],
    message: 'a promoted signal names the verified event it became',
  });
export type ReviewDecision = z.infer<typeof ReviewDecisionSchema>;
