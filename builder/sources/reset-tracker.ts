// Source 2: the upstream reset tracker's public API (`GET /api/v1/resets`), records with origin `service_resets`.
import { z } from 'zod';
import type { EventType } from '../contract.ts';
import { citedPost, timesFromPost } from '../model/evidence.ts';
import { EventSchema, type Detail, type Event } from '../model/schemas.ts';
import type { SourceResult } from '../model/inputs.ts';
import { formatIssuePath, JSON_BUDGET, parseJsonWithin, type ParseBudget } from './budget.ts';
import { computeCheck, type Fetcher, type SourceConfig } from './fetcher.ts';
import {
  cleanEvidence,
  cleanText,
  cleanUrl,
  count,
  judgedInstant,
  judgeInstant,
  readDetail,
  stableIdPart,
  TEXT_LIMITS,
  type NoteCounts,
  type RejectCounts,
  type RejectReason,
} from './sanitize.ts';

/** 10 pages of 100 is far more history than the tracker holds; past that the cursor is broken, not the history long. */
const TRACKER_MAX_PAGES = 10;
/**
 * Records one run takes from the tracker (newest first). The tracker holds a few hundred; a source that sends more
 * is flooding: the rest are counted (over_record_cap) and the read is partial (merged, never replacing state).
 */
export const MAX_RECORDS_PER_RUN = 1_000;

/** A record's or an announcement's `source`; a watch may give none. */
export const TrackerSourceSchema = z.object({
  type: z.string().optional(),
  author: z.string().nullable().optional(),
  url: z.string().nullable().optional(),
});

export const TrackerRecordSchema = z.object({
  id: z.union([z.string().min(1), z.number()]),
  // A plain string: a reset type added upstream is skipped (it is not a global reset by the API's own
  // definition) instead of failing the whole source.
  reset_type: z.string(),
  // Read by readInstant, so a date without a zone is named (no_timezone) rather than counted as a bad shape.
  announced_at: z.string(),
  // The service documents that `text` may be empty: such a record is kept and counted (noted `empty_text`).
  text: z.string(),
  // The link is checked by citedSource, so a bad one is counted as bad_url, not as a bad shape. An `observed` source
  // may have no url and no author (the service documents it); an `x_post` always cites its post.
  source: TrackerSourceSchema.extend({ type: z.enum(['x_post', 'observed']) }),
});
type TrackerRecord = z.infer<typeof TrackerRecordSchema>;

/** The envelope; records are validated one by one, so one bad record is counted instead of failing the page. */
const TrackerPageSchema = z.object({
  data: z.array(z.unknown()),
  pagination: z.object({ has_more: z.boolean(), next_cursor: z.string().nullable().optional() }),
  meta: z.object({ api_version: z.union([z.string(), z.number()]), generated_at: z.string() }).optional(),
});

/** The upstream tracker's reset types (its records and its scheduled reset) → ours; others are not ours to track. */
const TRACKER_TYPES: Readonly<Record<string, EventType>> = { regular: 'global_reset', banked: 'banked_grant' };

/** Our type of a tracker reset type, null for one we do not know (an own key only: `constructor` is no type). */
export const trackerEventType = (resetType: string | null | undefined): EventType | null =>
  typeof resetType === 'string' && Object.hasOwn(TRACKER_TYPES, resetType) ? TRACKER_TYPES[resetType]! : null;

/**
 * A tracker record's source as we publish it: an `x_post` must cite its post with a plain http(s) URL; an `observed`
 * source may have none (null: nothing is published), but one it does give must be a plain http(s) URL too.
 */
export function citedSource(
  source: z.infer<typeof TrackerSourceSchema>,
): { ok: true; source: { platform: string; url: string; author?: string } | null } | { ok: false } {
  if (!source.url?.trim()) return source.type === 'observed' ? { ok: true, source: null } : { ok: false };
  const url = cleanUrl(source.url);
  if (url === null) return { ok: false };
  const author = cleanText(source.author ?? '', TEXT_LIMITS.author);
  return { ok: true, source: { platform: source.type === 'x_post' ? 'X' : 'web', url, ...(author ? { author } : {}) } };
}

/** A record (or part of one) read, or why not; `path` (inside the record) only when its shape or a date was unreadable. */
export type RecordRead<T> = { ok: true; value: T } | { ok: false; reason: RejectReason; path?: readonly PropertyKey[] };
/** What records were refused for, and kept despite (sanitize.ts). */
export type RecordCounts = { rejected: RejectCounts; noted: NoteCounts };
export const refused = (reason: RejectReason, ...path: PropertyKey[]) => ({ ok: false, reason, path }) as const;

/** `value` as `schema` validates it, or refused as an invalid record (naming the first failing path). */
export function validated<S extends z.ZodType>(schema: S, value: unknown): RecordRead<z.output<S>> {
  const parsed = schema.safeParse(value);
  return parsed.success
    ? { ok: true, value: parsed.data }
    : refused('invalid_record', ...(parsed.error.issues[0]?.path ?? []));
}

/** A record refused for its shape or a date, as the schema_mismatch of item `i` of the page's `list`. */
export function schemaMismatch(list: string, i: number, reason: RejectReason, path: readonly PropertyKey[]): Detail {
  const why = reason === 'invalid_record' ? '' : ` (${reason})`;
  return { code: 'schema_mismatch', params: { path: `${formatIssuePath([list, i, ...path])}${why}` } };
}

/**
 * The X post `sources` cite if its time passes the date rules, and the verdict on that time: the post time is upstream
 * data too (a crafted id encodes any date up to the 28th century).
 */
export function usablePost(sources: readonly { url: string }[], asOf: Date) {
  const post = citedPost(sources);
  const verdict = post === null ? 'ok' : judgeInstant(post.at, asOf);
  return { post: verdict === 'ok' ? post : null, verdict } as const;
}

/** A tracker record archived as an Event (validated), or why not. */
export function archivedEvent(
  e: Pick<Event, 'id' | 'type' | 'origin' | 'effective_at' | 'evidence_text' | 'sources'>,
  { time_basis, announced_at, observed_at }: Pick<Event, 'time_basis' | 'announced_at' | 'observed_at'>,
): RecordRead<Event> {
  const archived = { status: 'archived', reason: 'other', time_precision: 'second', same_as: [] };
  return validated(EventSchema, { ...e, ...archived, time_basis, announced_at, observed_at });
}

/**
 * Pure: one tracker record → an archived Event (null for a reset type we do not know), or the reason it was rejected
 * (sanity rules of sanitize.ts: dates inside the tracked era and not in the future, an http(s) link, text left).
 * What a kept record was kept despite is counted in `noted`, a cited post time it could not use in `rejected`.
 */
export function computeTrackerEvent(
  r: TrackerRecord,
  asOf: Date,
  counts: RecordCounts = { rejected: {}, noted: {} },
): RecordRead<Event | null> {
  const type = trackerEventType(r.reset_type);
  if (!type) return { ok: true, value: null };
  // The tracker's API publishes instants with a zone: one without is refused, never read in the machine's zone.
  const read = judgedInstant(r.announced_at, asOf);
  if (!read.ok)
    return read.reason === 'bad_date' || read.reason === 'no_timezone' ? { ...read, path: ['announced_at'] } : read;
  const cited = citedSource(r.source);
  if (!cited.ok) return { ok: false, reason: 'bad_url' };
  // A cited X post dates the announcement (its id is a snowflake); the tracker's own time, when it differs by
  // more than a minute, is kept as the observation. A post time that fails the date rules is not used, and the
  // record keeps its own time; the dropped post time is counted.
  const sources = cited.source === null ? [] : [cited.source];
  const { post, verdict } = usablePost(sources, asOf);
  const evidence_text = cleanEvidence(r.text, TEXT_LIMITS.evidence);
  const id = `sr-${stableIdPart(String(r.id), 77)}`;
  const times =
    post === null && r.source.type !== 'x_post'
      ? { announced_at: null, observed_at: read.iso, time_basis: 'observation' as const }
      : timesFromPost(read.iso, post === null ? [] : sources);
  const event = archivedEvent(
    { id, type, origin: 'service_resets', effective_at: null, evidence_text, sources },
    times,
  );
  if (!event.ok) return event;
  if (cited.source === null) count(counts.noted, 'no_link');
  if (evidence_text === '') count(counts.noted, 'empty_text');
  if (verdict !== 'ok') count(counts.rejected, verdict);
  return event;
}

/**
 * Validates and maps one page's records into `events` (at most `maxRecords` in all), counting rejections and notes.
 * `capped`: the cap was reached (the rest of the page is counted as over_record_cap). `invalid`: the first shape
 * failure. Ids are a function of the upstream id alone (stableIdPart), so two records share one only when upstream
 * repeats an id (a looping cursor, a lying source): the first (newest) keeps it.
 */
export function takeTrackerRecords(
  records: readonly unknown[],
  asOf: Date,
  events: Map<string, Event>,
  counts: RecordCounts,
  maxRecords: number,
): { capped: boolean; valid: number; invalid: Detail | null } {
  let invalid: Detail | null = null;
  let valid = 0;
  for (const [i, raw] of records.entries()) {
    if (events.size >= maxRecords) {
      count(counts.rejected, 'over_record_cap', records.length - i);
      return { capped: true, valid, invalid };
    }
    const record = validated(TrackerRecordSchema, raw);
    const mapped = record.ok ? computeTrackerEvent(record.value, asOf, counts) : record;
    if (mapped.ok) {
      valid++;
      if (mapped.value && !events.has(mapped.value.id)) events.set(mapped.value.id, mapped.value);
      continue;
    }
    count(counts.rejected, mapped.reason);
    // A date that cannot be read is a shape failure too: a page of them is a broken source, not an empty one.
    if (invalid === null && mapped.path) invalid = schemaMismatch('data', i, mapped.reason, mapped.path);
  }
  return { capped: false, valid, invalid };
}

/** One page's body → its validated envelope under the parse budget, or the failed check's detail. */
export const parseTrackerPage = (body: string, budget: ParseBudget = JSON_BUDGET) =>
  parseJsonWithin(body, TrackerPageSchema, (value) => ({ ok: true, value }) as const, budget);

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
  opts: { pageLimit?: number; maxPages?: number; maxRecords?: number } = {},
): Promise<SourceResult> {
  const maxRecords = opts.maxRecords ?? MAX_RECORDS_PER_RUN;
  const events = new Map<string, Event>();
  const counts: RecordCounts = { rejected: {}, noted: {} };
  const seenCursors = new Set<string>();
  let latencyMs = 0;
  let itemsRead = 0;
  for (let page = 0, cursor: string | null = null; ; page++) {
    const pageUrl = new URL(config.url);
    pageUrl.searchParams.set('limit', String(opts.pageLimit ?? 100));
    if (cursor === null) pageUrl.searchParams.delete('cursor');
    else pageUrl.searchParams.set('cursor', cursor);
    const r = await fetcher.get(pageUrl.href, { accept: 'application/json' });
    latencyMs += r.latencyMs;
    const result = (ok: boolean, detail: Detail): SourceResult => {
      const fields = { ok, http_status: r.status, latency_ms: latencyMs, items_read: ok ? itemsRead : 0, detail };
      const check = computeCheck(config, asOf, fields);
      return ok ? { check, events: [...events.values()] } : { check };
    };
    const done = (code: string, params: Record<string, string | number> = {}) =>
      result(true, readDetail(code, params, counts.rejected, counts.noted));
    const parsed = r.ok ? parseTrackerPage(r.body) : r;
    if (!parsed.ok) return result(false, parsed.detail);
    const { data, pagination } = parsed.value;
    const taken = takeTrackerRecords(data, asOf, events, counts, maxRecords);
    itemsRead += taken.valid;
    if (taken.capped) return done('record_cap_reached', { max: maxRecords });
    // Not one valid record on a page is a changed API, not a few bad records.
    if (data.length > 0 && taken.valid === 0 && taken.invalid !== null) return result(false, taken.invalid);
    cursor = pagination.has_more ? (pagination.next_cursor ?? null) : null;
    if (cursor === null) return done('ok');
    if (seenCursors.has(cursor)) return done('cursor_repeated', { pages: page + 1 });
    if (page + 1 >= (opts.maxPages ?? TRACKER_MAX_PAGES)) return done('page_cap_reached', { pages: page + 1 });
    seenCursors.add(cursor);
  }
}
