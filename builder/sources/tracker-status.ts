// Source 2b: the upstream reset tracker's status endpoint (`GET /api/v1/status`), read for `data.scheduled_reset`:
// a reset announced but not yet applied. Everything else in it (`latest_reset`, `active_watch`, `stats`) may be
// missing or change shape without failing the source; `/api/v1/resets` remains the source of recorded resets.
import { z } from 'zod';
import { AnnouncementSchema, type Announcement, type EventType } from '../model/schemas.ts';
import { cleanText, computeCheck, failedFetchResult, parseJsonBody, sanitizeIdPart, schemaMismatch, toIsoInstant } from './common.ts';
import type { SourceResult } from '../model/inputs.ts';
import type { Fetcher, SourceConfig } from './fetcher.ts';

const TEXT_MAX_CHARS = 4000;
const AUTHOR_MAX_CHARS = 80;
const UPSTREAM_ID_MAX_CHARS = 120;

export const ScheduledResetSchema = z.object({
  id: z.union([z.string().min(1), z.number()]),
  status: z.string().optional(),
  // A plain string: an unknown type is kept as an announcement of unknown type, not a failure.
  reset_type: z.string().nullable().optional(),
  announced_at: z.iso.datetime({ offset: true }),
  scheduled_for: z.iso.datetime({ offset: true }).nullable().optional(),
  text: z.string().min(1),
  source: z.object({ type: z.string().optional(), author: z.string().nullable().optional(), url: z.url({ protocol: /^https?$/ }) }),
});

export const TrackerStatusSchema = z.object({
  data: z.looseObject({ scheduled_reset: ScheduledResetSchema.nullable().optional() }),
});

const TYPE_MAP: Record<string, EventType> = { regular: 'global_reset', banked: 'banked_grant' };

/**
 * Pure: the payload's `scheduled_reset` → an Announcement (null when none is announced or it is no longer
 * `scheduled`), or the validation error of a record that cannot be one.
 */
export function computeAnnouncement(
  raw: z.infer<typeof ScheduledResetSchema> | null | undefined,
  asOf: Date,
): { ok: true; announcement: Announcement | null } | { ok: false; error: z.ZodError } {
  if (!raw || (raw.status !== undefined && raw.status !== 'scheduled')) return { ok: true, announcement: null };
  const upstreamId = String(raw.id).slice(0, UPSTREAM_ID_MAX_CHARS);
  const author = raw.source.author ? cleanText(raw.source.author, AUTHOR_MAX_CHARS) : '';
  const parsed = AnnouncementSchema.safeParse({
    // The same id the record gets in `/resets` once applied (reset-tracker.ts), so the two can be matched.
    id: `sr-${sanitizeIdPart(upstreamId, 77) || 'unknown'}`,
    upstream_id: upstreamId,
    type: TYPE_MAP[raw.reset_type ?? ''] ?? null,
    announced_at: toIsoInstant(raw.announced_at),
    scheduled_for: toIsoInstant(raw.scheduled_for ?? null),
    text: cleanText(raw.text, TEXT_MAX_CHARS) || '(no text)',
    source: { platform: raw.source.type === 'x_post' ? 'X' : 'web', url: raw.source.url, ...(author ? { author } : {}) },
    first_seen_at: asOf.toISOString().replace('.000Z', 'Z'),
  });
  return parsed.success ? { ok: true, announcement: parsed.data } : { ok: false, error: parsed.error };
}

export async function fetchTrackerStatus(fetcher: Fetcher, config: SourceConfig, asOf: Date): Promise<SourceResult> {
  const r = await fetcher.get(config.url, { accept: 'application/json' });
  if (!r.ok) return failedFetchResult(config, asOf, r);
  const fail = (detail: { code: string; params: Record<string, string | number> }): SourceResult => ({
    check: computeCheck(config, asOf, { ok: false, http_status: r.status, latency_ms: r.latencyMs, items_read: 0, detail }),
  });
  const json = parseJsonBody(r.body);
  if (!json.ok) return fail({ code: 'invalid_json', params: {} });
  const parsed = TrackerStatusSchema.safeParse(json.value);
  if (!parsed.success) return fail(schemaMismatch(parsed.error));
  const mapped = computeAnnouncement(parsed.data.data.scheduled_reset, asOf);
  if (!mapped.ok) return fail(schemaMismatch(mapped.error, ['data', 'scheduled_reset']));
  const { announcement } = mapped;
  return {
    check: computeCheck(config, asOf, { ok: true, http_status: r.status, latency_ms: r.latencyMs, items_read: announcement ? 1 : 0, detail: { code: 'ok', params: {} } }),
    announcement,
  };
}
