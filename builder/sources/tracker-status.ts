// Source 2b: the upstream reset tracker's status endpoint (`GET /api/v1/status`), read for `data.scheduled_reset`:
// a reset announced but not yet applied. Everything else in it (`latest_reset`, `active_watch`, `stats`) may be
// missing or change shape without failing the source; `/api/v1/resets` remains the source of recorded resets.
// Hostile like every source: parsed under a budget (budget.ts), text and links cleaned and dates judged (sanitize.ts).
import { z } from 'zod';
import type { SourceResult } from '../model/inputs.ts';
import { AnnouncementSchema, type Announcement, type Detail, type EventType } from '../model/schemas.ts';
import { TRACKER_PAGE_BUDGET, type ParseBudget } from './budget.ts';
import { computeCheck, failedFetchResult, fetchOptions, parseJsonWithin, schemaMismatch, stableIdPart, trackerEventType } from './common.ts';
import { readInstant } from './instant.ts';
import type { Fetcher, SourceConfig } from './fetcher.ts';
import { cleanEvidence, cleanText, cleanUrl, judgeInstant, TEXT_LIMITS, type RejectReason } from './sanitize.ts';

const UPSTREAM_ID_MAX_CHARS = 120;
/** An announced time further ahead than this is not a plausible announcement of a reset (a crafted date). */
export const MAX_SCHEDULE_AHEAD_MS = 60 * 24 * 60 * 60 * 1000;

export const ScheduledResetSchema = z.object({
  id: z.union([z.string().min(1), z.number()]),
  status: z.string().optional(),
  // A plain string: an unknown type is kept as an announcement of unknown type, not a failure.
  reset_type: z.string().nullable().optional(),
  // Read by readInstant, so a time without a zone is named (no_timezone) rather than reported as a bad shape.
  announced_at: z.string(),
  scheduled_for: z.string().nullable().optional(),
  text: z.string().min(1),
  source: z.object({ type: z.string().optional(), author: z.string().nullable().optional(), url: z.string() }),
});

export const TrackerStatusSchema = z.object({
  data: z.looseObject({ scheduled_reset: ScheduledResetSchema.nullable().optional() }),
});

/** `field`: the field that failed a date rule, named in the check. */
type Mapped = { ok: true; announcement: Announcement | null } | { ok: false; reason: RejectReason; error?: z.ZodError; field?: string };

/**
 * Pure: the payload's `scheduled_reset` → an Announcement (null when none is announced or it is no longer
 * `scheduled`), or why it was rejected: an announcement time outside the tracked era or in the future, a scheduled
 * time more than 60 days ahead, a link that is not plain http(s), no text left after cleaning.
 */
export function computeAnnouncement(raw: z.infer<typeof ScheduledResetSchema> | null | undefined, asOf: Date): Mapped {
  if (!raw || (raw.status !== undefined && raw.status !== 'scheduled')) return { ok: true, announcement: null };
  // The tracker's API publishes instants with a zone: one without is refused, never read in the machine's zone.
  const announced = readInstant(raw.announced_at, 'reject');
  if (!announced.ok) return { ok: false, reason: announced.reason, field: 'announced_at' };
  const announcedAt = announced.iso;
  const verdict = judgeInstant(announcedAt, asOf);
  if (verdict !== 'ok') return { ok: false, reason: verdict, field: 'announced_at' };
  const scheduled = raw.scheduled_for === null || raw.scheduled_for === undefined ? null : readInstant(raw.scheduled_for, 'reject');
  if (scheduled !== null && !scheduled.ok) return { ok: false, reason: scheduled.reason, field: 'scheduled_for' };
  const scheduledFor = scheduled === null ? null : scheduled.iso;
  if (scheduledFor !== null && (judgeInstant(scheduledFor, new Date(asOf.getTime() + MAX_SCHEDULE_AHEAD_MS)) !== 'ok')) return { ok: false, reason: 'future_date', field: 'scheduled_for' };
  const url = cleanUrl(raw.source.url);
  if (url === null) return { ok: false, reason: 'bad_url' };
  const text = cleanEvidence(raw.text, TEXT_LIMITS.evidence);
  if (text === '') return { ok: false, reason: 'empty_text' };
  const author = cleanText(raw.source.author ?? '', TEXT_LIMITS.author);
  const upstreamId = cleanText(String(raw.id), UPSTREAM_ID_MAX_CHARS) || 'unknown';
  const parsed = AnnouncementSchema.safeParse({
    // The same id the record gets in `/resets` once applied (reset-tracker.ts), so the two can be matched.
    id: `sr-${stableIdPart(String(raw.id), 77)}`,
    upstream_id: upstreamId,
    type: trackerEventType(raw.reset_type),
    announced_at: announcedAt,
    scheduled_for: scheduledFor,
    text,
    source: { platform: raw.source.type === 'x_post' ? 'X' : 'web', url, ...(author ? { author } : {}) },
    first_seen_at: asOf.toISOString().replace('.000Z', 'Z'),
  });
  return parsed.success ? { ok: true, announcement: parsed.data } : { ok: false, reason: 'invalid_record', error: parsed.error };
}

/** The body → its validated envelope under the tracker's parse budget, or the failed check's detail. */
export function parseTrackerStatus(body: string, opts: { budget?: ParseBudget; now?: () => number } = {}): { ok: true; value: z.infer<typeof TrackerStatusSchema> } | { ok: false; detail: Detail } {
  const parsed = parseJsonWithin(body, TrackerStatusSchema, opts.budget ?? TRACKER_PAGE_BUDGET, opts.now);
  return parsed.ok ? { ok: true, value: parsed.value } : parsed;
}

/**
 * A rejected announcement fails the check (the last good one stays in state): there is only one record, and
 * dropping it silently would read as "nothing announced".
 */
export async function fetchTrackerStatus(fetcher: Fetcher, config: SourceConfig, asOf: Date): Promise<SourceResult> {
  const r = await fetcher.get(config.url, fetchOptions(config, 'application/json'));
  if (!r.ok) return failedFetchResult(config, asOf, r);
  const fail = (detail: Detail): SourceResult => ({
    check: computeCheck(config, asOf, { ok: false, http_status: r.status, latency_ms: r.latencyMs, items_read: 0, detail }),
  });
  const parsed = parseTrackerStatus(r.body);
  if (!parsed.ok) return fail(parsed.detail);
  const mapped = computeAnnouncement(parsed.value.data.scheduled_reset, asOf);
  if (!mapped.ok) {
    return fail(mapped.error ? schemaMismatch(mapped.error, ['data', 'scheduled_reset']) : { code: 'schema_mismatch', params: { path: `data.scheduled_reset${mapped.field ? `.${mapped.field}` : ''} (${mapped.reason})` } });
  }
  const { announcement } = mapped;
  return {
    check: computeCheck(config, asOf, { ok: true, http_status: r.status, latency_ms: r.latencyMs, items_read: announcement ? 1 : 0, detail: { code: 'ok', params: {} } }),
    announcement,
  };
}
