// Source 2: the upstream reset tracker's public API (`GET /api/v1/resets`), records with origin `service_resets`.
import { z } from 'zod';
import { citedPost, timesFromPost } from '../model/evidence.ts';
import { EventSchema, type Detail, type Event } from '../model/schemas.ts';
import type { SourceResult } from '../model/inputs.ts';
import { TRACKER_PAGE_BUDGET, type ParseBudget } from './budget.ts';
import {
  computeCheck,
  failedFetchResult,
  fetchOptions,
  parseJsonWithin,
  readDetail,
  schemaMismatch,
  stableIdPart,
  trackerEventType,
} from './common.ts';
import { readInstant } from './instant.ts';
import type { Fetcher, SourceConfig } from './fetcher.ts';
import {
  cleanEvidence,
  cleanText,
  cleanUrl,
  countNote,
  countReject,
  judgeInstant,
  TEXT_LIMITS,
  type NoteCounts,
  type NoteReason,
  type RejectCounts,
  type RejectReason,
} from './sanitize.ts';

export const TRACKER_PAGE_LIMIT = 100;
/** 10 pages of 100 is far more history than the tracker holds; past that the cursor is broken, not the history long. */
export const TRACKER_MAX_PAGES = 10;
/**
 * Records one run takes from the tracker (newest first). The tracker holds a few hundred; a source that sends more
 * is flooding: the rest are counted (over_record_cap) and the read is partial (merged, never replacing state).
 */
export const MAX_RECORDS_PER_RUN = 1_000;

export const TrackerRecordSchema = z.object({
  id: z.union([z.string().min(1), z.number()]),
  // A plain string: a reset type added upstream is skipped (it is not a global reset by the API's own
  // definition) instead of failing the whole source.
  reset_type: z.string(),
  // Read by readInstant, so a date without a zone is named (no_timezone) rather than counted as a bad shape.
  announced_at: z.string(),
  // The service documents that `text` may be empty: such a record is kept and counted (noted `empty_text`).
  text: z.string(),
  // The link is checked by cleanUrl (http(s) with a host), so a bad one is counted as bad_url, not as a bad shape. An
  // `observed` source may have no url and no author (the service documents it); an `x_post` always cites its post.
  source: z.object({
    type: z.enum(['x_post', 'observed']),
    author: z.string().nullable().optional(),
    url: z.string().nullable().optional(),
  }),
});
export type TrackerRecord = z.infer<typeof TrackerRecordSchema>;

/** The envelope; records are validated one by one, so one bad record is counted instead of failing the page. */
export const TrackerPageSchema = z.object({
  data: z.array(z.unknown()),
  pagination: z.object({ has_more: z.boolean(), next_cursor: z.string().nullable().optional() }),
  meta: z.object({ api_version: z.union([z.string(), z.number()]), generated_at: z.string() }).optional(),
});
export type TrackerPage = z.infer<typeof TrackerPageSchema>;

export interface ResetTrackerOptions {
  pageLimit?: number;
  maxPages?: number;
  maxRecords?: number;
  /** The parse budget's clock (performance.now by default). */
  now?: () => number;
}

/**
 * Pure: one tracker record → an archived Event (null for a reset type we do not know), or the reason it was rejected
 * (sanity rules of sanitize.ts: dates inside the tracked era and not in the future, an http(s) link, text left).
 */
export function computeTrackerEvent(
  r: TrackerRecord,
  asOf: Date,
):
  | { ok: true; event: Event | null; dropped?: RejectReason; noted: NoteReason[] }
  | { ok: false; reason: RejectReason; error?: z.ZodError; unreadable?: string } {
  const type = trackerEventType(r.reset_type);
  if (!type) return { ok: true, event: null, noted: [] };
  // The tracker's API publishes instants with a zone: one without is refused, never read in the machine's zone.
  const read = readInstant(r.announced_at, 'reject');
  if (!read.ok) return { ok: false, reason: read.reason, unreadable: 'announced_at' };
  const at = read.iso;
  const verdict = judgeInstant(at, asOf);
  if (verdict !== 'ok') return { ok: false, reason: verdict };
  const noted: NoteReason[] = [];
  const link = linkOf(r.source);
  if (!link.ok) return { ok: false, reason: 'bad_url' };
  const url = link.url;
  if (url === null) noted.push('no_link');
  const evidence = cleanEvidence(r.text, TEXT_LIMITS.evidence);
  if (evidence === '') noted.push('empty_text');
  const author = cleanText(r.source.author ?? '', TEXT_LIMITS.author);
  // A cited X post dates the announcement (its id is a snowflake); the tracker's own time, when it differs by
  // more than a minute, is kept as the observation.
  const sources = url === null ? [] : [{ url }];
  const fromPost = timesFromPost(at, sources);
  // The post time is upstream data too (a crafted id encodes any date up to the 28th century): one that fails the
  // date rules is not used, and the record keeps its own time; the dropped post time is counted.
  const postVerdict = citedPost(sources) === null ? 'ok' : judgeInstant(fromPost.announced_at, asOf);
  const posted = citedPost(sources) !== null && postVerdict === 'ok';
  const basis = posted ? fromPost.time_basis : r.source.type === 'x_post' ? 'announcement' : 'observation';
  const parsed = EventSchema.safeParse({
    id: `sr-${stableIdPart(String(r.id), 77)}`,
    type,
    status: 'archived',
    reason: 'other',
    origin: 'service_resets',
    time_precision: 'second',
    time_basis: basis,
    announced_at: posted ? fromPost.announced_at : basis === 'announcement' ? at : null,
    observed_at: posted ? fromPost.observed_at : basis === 'observation' ? at : null,
    effective_at: null,
    evidence_text: evidence,
    sources:
      url === null ? [] : [{ platform: r.source.type === 'x_post' ? 'X' : 'web', url, ...(author ? { author } : {}) }],
    same_as: [],
  });
  if (!parsed.success) return { ok: false, reason: 'invalid_record', error: parsed.error };
  return postVerdict === 'ok'
    ? { ok: true, event: parsed.data, noted }
    : { ok: true, event: parsed.data, dropped: postVerdict, noted };
}

/**
 * A tracker source's link: an `x_post` must cite its post with a plain http(s) URL; an `observed` source may have none
 * (null: nothing is published as its link), but one it does give must be a plain http(s) URL too.
 */
export function linkOf(source: {
  type?: string | undefined;
  url?: string | null | undefined;
}): { ok: true; url: string | null } | { ok: false } {
  const raw = source.url ?? null;
  if (raw === null || raw.trim() === '') return source.type === 'observed' ? { ok: true, url: null } : { ok: false };
  const url = cleanUrl(raw);
  return url === null ? { ok: false } : { ok: true, url };
}

function pageUrl(base: string, limit: number, cursor: string | null): string {
  const u = new URL(base);
  u.searchParams.set('limit', String(limit));
  if (cursor !== null) u.searchParams.set('cursor', cursor);
  else u.searchParams.delete('cursor');
  return u.href;
}

/** One page's body → its validated envelope, under the tracker's parse budget; or the failed check's detail. */
export function parseTrackerPage(
  body: string,
  opts: { budget?: ParseBudget; now?: () => number } = {},
): { ok: true; page: TrackerPage } | { ok: false; detail: Detail } {
  const parsed = parseJsonWithin(body, TrackerPageSchema, opts.budget ?? TRACKER_PAGE_BUDGET, opts.now);
  return parsed.ok ? { ok: true, page: parsed.value } : parsed;
}

/**
 * Validates and maps one page's records into `events` (at most `maxRecords` in all), counting rejections. `capped`:
 * the cap was reached (the rest of the page is counted as over_record_cap). `invalid`: the first shape failure.
 */
export function takeTrackerRecords(
  records: readonly unknown[],
  asOf: Date,
  events: Map<string, Event>,
  rejected: RejectCounts,
  maxRecords: number,
  noted: NoteCounts = {},
): { capped: boolean; valid: number; invalid: Detail | null } {
  let invalid: Detail | null = null;
  let valid = 0;
  for (const [i, raw] of records.entries()) {
    if (events.size >= maxRecords) {
      countReject(rejected, 'over_record_cap', records.length - i);
      return { capped: true, valid, invalid };
    }
    const record = TrackerRecordSchema.safeParse(raw);
    const mapped = record.success
      ? computeTrackerEvent(record.data, asOf)
      : ({ ok: false, reason: 'invalid_record', error: record.error } as const);
    if (!mapped.ok) {
      countReject(rejected, mapped.reason);
      // A date that cannot be read is a shape failure too: a page of them is a broken source, not an empty one.
      if (invalid === null && mapped.error) invalid = schemaMismatch(mapped.error, ['data', i]);
      else if (invalid === null && 'unreadable' in mapped && mapped.unreadable)
        invalid = { code: 'schema_mismatch', params: { path: `data[${i}].${mapped.unreadable} (${mapped.reason})` } };
      continue;
    }
    valid++;
    if (mapped.dropped) countReject(rejected, mapped.dropped);
    for (const n of mapped.noted) countNote(noted, n);
    if (mapped.event) addEvent(events, mapped.event);
  }
  return { capped: false, valid, invalid };
}

/**
 * Adds one record's event. Ids are a function of the upstream id alone (stableIdPart), so two records share one only
 * when upstream repeats an id (a looping cursor, a lying source): the first (newest) keeps it. Numbering the later one
 * would make ids depend on arrival order.
 */
function addEvent(events: Map<string, Event>, e: Event): void {
  if (!events.has(e.id)) events.set(e.id, e);
}

/**
 * Follows `pagination.next_cursor` up to `maxPages`. The API lists newest first, so the first pages hold the
 * records that decide today's state. When the cursor never ends (page cap, or a cursor seen before) or the source
 * sends more than MAX_RECORDS_PER_RUN records, the check is still ok, with detail `page_cap_reached` /
 * `cursor_repeated` / `record_cap_reached`: the newest data was read correctly and a broken tail must not turn
 * today's state `unknown`. apply.ts sees that detail and merges these events into the stored ones instead of
 * replacing them, so the partial read never drops older records. A page that fails to fetch or parse, or whose
 * records are all invalid, fails the whole check and returns no events: that is an unhealthy run, not a broken tail.
 * Single records that fail the sanity rules are counted per reason in the check detail.
 */
export async function fetchResetTracker(
  fetcher: Fetcher,
  config: SourceConfig,
  asOf: Date,
  opts: ResetTrackerOptions = {},
): Promise<SourceResult> {
  const limit = opts.pageLimit ?? TRACKER_PAGE_LIMIT;
  const maxPages = opts.maxPages ?? TRACKER_MAX_PAGES;
  const maxRecords = opts.maxRecords ?? MAX_RECORDS_PER_RUN;
  const events = new Map<string, Event>();
  const rejected: RejectCounts = {};
  const noted: NoteCounts = {};
  const seenCursors = new Set<string>();
  let cursor: string | null = null;
  let latencyMs = 0;
  let httpStatus: number | null = null;
  let itemsRead = 0;
  for (let page = 0; ; page++) {
    const r = await fetcher.get(pageUrl(config.url, limit, cursor), fetchOptions(config, 'application/json'));
    latencyMs += r.latencyMs;
    if (!r.ok) return failedFetchResult(config, asOf, { ...r, latencyMs });
    httpStatus = r.status;
    const fail = (detail: Detail): SourceResult => ({
      check: computeCheck(config, asOf, {
        ok: false,
        http_status: httpStatus,
        latency_ms: latencyMs,
        items_read: 0,
        detail,
      }),
    });
    const ok = (code: string, params: Record<string, string | number>): SourceResult => ({
      check: computeCheck(config, asOf, {
        ok: true,
        http_status: httpStatus,
        latency_ms: latencyMs,
        items_read: itemsRead,
        detail: readDetail(code, params, rejected, noted),
      }),
      events: [...events.values()],
    });
    const parsed = parseTrackerPage(r.body, opts.now ? { now: opts.now } : {});
    if (!parsed.ok) return fail(parsed.detail);
    const records = parsed.page.data;
    const taken = takeTrackerRecords(records, asOf, events, rejected, maxRecords, noted);
    itemsRead += taken.valid;
    if (taken.capped) return ok('record_cap_reached', { max: maxRecords });
    // Not one valid record on a page is a changed API, not a few bad records.
    if (records.length > 0 && taken.valid === 0 && taken.invalid !== null) return fail(taken.invalid);
    const next = parsed.page.pagination.has_more ? (parsed.page.pagination.next_cursor ?? null) : null;
    if (next === null) return ok('ok', {});
    if (seenCursors.has(next)) return ok('cursor_repeated', { pages: page + 1 });
    if (page + 1 >= maxPages) return ok('page_cap_reached', { pages: page + 1 });
    seenCursors.add(next);
    cursor = next;
  }
}
