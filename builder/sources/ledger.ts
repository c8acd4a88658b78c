// The codex-reset-ledger's review file (data/ledger-review.json) and its type column, as the build reads them. The
// CSV importer that writes data/archive/codex-reset-ledger.json is scripts/ledger-import.ts.
import { z } from 'zod';
import type { EventType } from '../contract.ts';
import { EventTypeSchema, ReasonSchema, type Reason, REASONS } from '../model/schemas.ts';

export const LEDGER_NAME = 'codex-reset-ledger';
const MINUTES_PER_DAY = 24 * 60;
const POST_ID = /^\d{1,20}$/;

/**
 * A reviewed decision on one ledger row (data/ledger-review.json): why the row's type or time is read
 * differently from the ledger, with the evidence. The import fails on a post-time disagreement that no decision
 * explains, and on a decision that matches no row, so both the data and its review stay in step.
 */
export const LedgerDecisionSchema = z.strictObject({
  /** The row's `date_utc` and `time_utc` as an instant (`2026-06-28T23:54:07Z`), or the date alone. */
  row: z.string().regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}Z)?$/),
  /** The X post the row cites, so a decision cannot silently drift onto another row. */
  post_id: z.string().regex(POST_ID).nullable(),
  /** What is changed (or `kept`), in one sentence; shown as the record's author note. */
  decision: z.string().min(1).max(600),
  /** The written reason. */
  why: z.string().min(1).max(2000),
  /** What the reviewer looked at: quotes, post times computed from ids, neighbouring rows. */
  evidence: z.array(z.string().min(1).max(600)).min(1),
  reviewed_by: z.string().min(1).max(80),
  reviewed_at: z.iso.date(),
  /** The row's own time differs from its post's: keep it as the observation time (the disagreement is expected). */
  explains_time_disagreement: z.boolean().default(false),
  set_type: EventTypeSchema.optional(),
  set_reason: ReasonSchema.optional(),
  /** The row's own `type` column when set_type changes it, so a build as of before the review shows the ledger's. */
  ledger_type: z.string().min(1).max(40).optional(),
  /**
   * The post announces the reset for a bounded window ("in the next hour"): effective_at is the window's end,
   * the latest instant the announcement allows, and its UTC date decides "today" (docs/forecast.md).
   */
  effective_within_minutes: z.number().int().positive().max(MINUTES_PER_DAY).optional(),
  /** The row's `00:00:00` is a placeholder for "some time that day". */
  date_only: z.boolean().default(false),
});
export type LedgerDecision = z.infer<typeof LedgerDecisionSchema>;
export const LedgerReviewSchema = z.strictObject({
  ledger: z.literal(LEDGER_NAME),
  decisions: z.array(LedgerDecisionSchema),
});

export function typeOf(ledgerType: string): { type: EventType; reason: Reason } {
  if (ledgerType === 'banked') return { type: 'banked_grant', reason: 'banked' };
  if (ledgerType === 'policy') return { type: 'policy_change', reason: 'policy' };
  const reason = (REASONS as readonly string[]).includes(ledgerType) ? (ledgerType as Reason) : 'other';
  return { type: 'global_reset', reason };
}
