// Source 2: the upstream reset tracker's public API (`GET /api/v1/resets`), records with origin `service_resets`.
import { z } from 'zod';
import { citedPost, timesFromPost } from '../model/evidence.ts';
import { EventSchema, type Event } from '../model/schemas.ts';
import { computeCheck, failedFetchResult, parseJsonBody, sanitizeIdPart, schemaMismatch, toIsoInstant } from './common.ts';
import type { SourceResult } from '../model/inputs.ts';
import type { Fetcher, SourceConfig } from './fetcher.ts';

export const TRACKER_PAGE_LIMIT = 100;
/** 20 pages of 100 is far more history than the tracker holds; past that the cursor is broken, not the history long. */
export const TRACKER_MAX_PAGES = 20;
const EVIDENCE_MAX_CHARS = 4000;
const AUTHOR_MAX_CHARS = 80;

export const TrackerRecordSchema = z.object({
  id: z.union([z.string().min(1), z.number()]),
  // A plain string: a reset type added upstream is skipped (it is not a global reset by the API's own
  // definition) instead of failing the whole source.
  reset_type: z.string(),
  announced_at: z.iso.datetime({ offset: true }),
  text: z.string().min(1),
  // Only http(s): these links end up in public responses and web pages.
  source: z.object({ type: z.enum(['x_post', 'observed']), author: z.string().nullable().optional(), url: z.url({ protocol: /^https?$/ }) }),
});
export type TrackerRecord = z.infer<typeof TrackerRecordSchema>;

export const TrackerPageSchema = z.object({
  data: z.array(TrackerRecordSchema),
  pagination: z.object({ has_more: z.boolean(), next_cursor: z.string().nullable().optional() }),
  meta: z.object({ api_version: z.union([z.string(), z.number()]), generated_at: z.string() }).optional(),
});
export type TrackerPage = z.infer<typeof TrackerPageSchema>;

export interface ResetTrackerOptions {
  pageLimit?: number;
  maxPages?: number;
}

const TYPE_MAP: Record<string, Event['type']> = { regular: 'global_reset', banked: 'banked_grant' };

/** Pure: one tracker record → an archived Event (null for a reset type we do not know), or why it is invalid. */
export function computeTrackerEvent(r: TrackerRecord): { ok: true; event: Event | null } | { ok: false; error: z.ZodError } {
  const type = TYPE_MAP[r.reset_type];
  if (!type) return { ok: true, event: null };
  const at = toIsoInstant(r.announced_at);
  const author = r.source.author?.trim().slice(0, AUTHOR_MAX_CHARS);
  // A cited X post dates the announcement (its id is a snowflake); the tracker's own time, when it differs by
  // more than a minute, is kept as the observation.
  const fromPost = at === null ? null : timesFromPost(at, [r.source]);
  const posted = fromPost !== null && citedPost([r.source]) !== null;
  const basis = posted ? fromPost!.time_basis : r.source.type === 'x_post' ? 'announcement' : 'observation';
  const parsed = EventSchema.safeParse({
    id: `sr-${sanitizeIdPart(String(r.id), 77) || 'unknown'}`,
    type,
    status: 'archived',
    reason: 'other',
    origin: 'service_resets',
    time_precision: 'second',
    time_basis: basis,
    announced_at: posted ? fromPost!.announced_at : basis === 'announcement' ? at : null,
    observed_at: posted ? fromPost!.observed_at : basis === 'observation' ? at : null,
    effective_at: null,
    evidence_text: r.text.length > EVIDENCE_MAX_CHARS ? r.text.slice(0, EVIDENCE_MAX_CHARS) : r.text,
    sources: [{ platform: r.source.type === 'x_post' ? 'X' : 'web', url: r.source.url, ...(author ? { author } : {}) }],
    same_as: [],
  });
  return parsed.success ? { ok: true, event: parsed.data } : { ok: false, error: parsed.error };
}

function pageUrl(base: string, limit: number, cursor: string | null): string {
  const u = new URL(base);
  u.searchParams.set('limit', String(limit));
  if (cursor !== null) u.searchParams.set('cursor', cursor);
  else u.searchParams.delete('cursor');
  return u.href;
}

/**
 * Follows `pagination.next_cursor` up to `maxPages`. The API lists newest first, so the first pages hold the
 * records that decide today's state. When the cursor never ends (page cap, or a cursor seen before) the check is
 * still ok, with detail `page_cap_reached` / `cursor_repeated`: the newest data was read correctly and a broken
 * tail must not turn today's state `unknown`. apply.ts sees that detail and merges these events into the stored
 * ones instead of replacing them, so the partial read never drops older records. A page that fails to fetch or
 * validate fails the whole check and returns no events: that is an unhealthy run, not a broken tail.
 */
export async function fetchResetTracker(fetcher: Fetcher, config: SourceConfig, asOf: Date, opts: ResetTrackerOptions = {}): Promise<SourceResult> {
  const limit = opts.pageLimit ?? TRACKER_PAGE_LIMIT;
  const maxPages = opts.maxPages ?? TRACKER_MAX_PAGES;
  const events = new Map<string, Event>();
  const seenCursors = new Set<string>();
  let cursor: string | null = null;
  let latencyMs = 0;
  let httpStatus: number | null = null;
  let itemsRead = 0;
  for (let page = 0; ; page++) {
    const r = await fetcher.get(pageUrl(config.url, limit, cursor), { accept: 'application/json' });
    latencyMs += r.latencyMs;
    if (!r.ok) return failedFetchResult(config, asOf, { ...r, latencyMs });
    httpStatus = r.status;
    const fail = (detail: { code: string; params: Record<string, string | number> }): SourceResult => ({
      check: computeCheck(config, asOf, { ok: false, http_status: httpStatus, latency_ms: latencyMs, items_read: 0, detail }),
    });
    const json = parseJsonBody(r.body);
    if (!json.ok) return fail({ code: 'invalid_json', params: {} });
    const parsed = TrackerPageSchema.safeParse(json.value);
    if (!parsed.success) return fail(schemaMismatch(parsed.error));
    for (const [i, record] of parsed.data.data.entries()) {
      itemsRead++;
      const mapped = computeTrackerEvent(record);
      if (!mapped.ok) return fail(schemaMismatch(mapped.error, ['data', i]));
      const e = mapped.event;
      // Sanitising ids can make two upstream ids collide; the first (newest) record keeps the plain id. The same
      // record seen again (a looping cursor) is skipped.
      if (e) {
        let id = e.id;
        for (let k = 2; events.has(id) && events.get(id)!.sources[0]?.url !== e.sources[0]?.url; k++) id = `${e.id.slice(0, 76)}-${k}`;
        if (!events.has(id)) events.set(id, { ...e, id });
      }
    }
    const next = parsed.data.pagination.has_more ? (parsed.data.pagination.next_cursor ?? null) : null;
    const ok = (code: string, params: Record<string, string | number>): SourceResult => ({
      check: computeCheck(config, asOf, { ok: true, http_status: httpStatus, latency_ms: latencyMs, items_read: itemsRead, detail: { code, params } }),
      events: [...events.values()],
    });
    if (next === null) return ok('ok', {});
    if (seenCursors.has(next)) return ok('cursor_repeated', { pages: page + 1 });
    if (page + 1 >= maxPages) return ok('page_cap_reached', { pages: page + 1 });
    seenCursors.add(next);
    cursor = next;
  }
}
