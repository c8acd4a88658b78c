// Source 2b: the upstream reset tracker's status endpoint (`GET /api/v1/status`). Its four parts are read one by one,
// each under its own schema, so a malformed part is named in the check's detail and never fails the others:
// `latest_reset` (a record, so a new reset shows one tick before `/resets` lists it: the service caches this endpoint
// 60 s at its CDN against 300 s for `/resets`), `scheduled_reset` (a reset announced but not applied yet),
// `active_watch` (the tracker's own watch) and `stats` (`total` is compared with the records `/resets` listed).
// Hostile like every source: parsed under a budget (budget.ts), text and links cleaned and dates judged (sanitize.ts).
import { z } from 'zod';
import { formatInstant } from '../contract.ts';
import type { SourceResult } from '../model/inputs.ts';
import {
  AnnouncementSchema,
  TrackerWatchSchema,
  type Announcement,
  type Detail,
  type Event,
  type TrackerWatch,
} from '../model/schemas.ts';
import { TRACKER_PAGE_BUDGET, type ParseBudget } from './budget.ts';
import {
  computeCheck,
  failedFetchResult,
  fetchOptions,
  formatIssuePath,
  parseJsonWithin,
  stableIdPart,
  trackerEventType,
} from './common.ts';
import { readInstant } from './instant.ts';
import type { Fetcher, SourceConfig } from './fetcher.ts';
import { computeTrackerEvent, linkOf, TrackerRecordSchema } from './reset-tracker.ts';
import { cleanEvidence, cleanText, judgeInstant, TEXT_LIMITS, type RejectReason } from './sanitize.ts';

const UPSTREAM_ID_MAX_CHARS = 120;
/** An announced time further ahead than this is not a plausible announcement of a reset (a crafted date). */
export const MAX_SCHEDULE_AHEAD_MS = 60 * 24 * 60 * 60 * 1000;
/** A watch that claims to last longer than this is not a plausible watch (a crafted date): its end is not used. */
export const MAX_WATCH_AHEAD_MS = 30 * 24 * 60 * 60 * 1000;

const TrackerSourceSchema = z.object({
  type: z.string().optional(),
  author: z.string().nullable().optional(),
  url: z.string().nullable().optional(),
});

export const ScheduledResetSchema = z.object({
  id: z.union([z.string().min(1), z.number()]),
  status: z.string().optional(),
  // A plain string: an unknown type is kept as an announcement of unknown type, not a failure.
  reset_type: z.string().nullable().optional(),
  // Read by readInstant, so a time without a zone is named (no_timezone) rather than reported as a bad shape.
  announced_at: z.string(),
  scheduled_for: z.string().nullable().optional(),
  text: z.string(),
  source: TrackerSourceSchema,
});

export const ActiveWatchSchema = z.object({
  level: z.string().min(1),
  reset_chance_percent: z.number().min(0).max(100).nullable().optional(),
  forecast_window: z.string().nullable().optional(),
  observed_at: z.string(),
  expires_at: z.string().nullable().optional(),
  text: z.string().nullable().optional(),
  source: TrackerSourceSchema.nullable().optional(),
});

export const TrackerStatsSchema = z.object({ total: z.number().int().nonnegative() }).loose();

/** Only the envelope: each part is read on its own below. */
export const TrackerStatusSchema = z.object({ data: z.record(z.string(), z.unknown()) });

/** `field`: the field that failed a date rule, named in the check. */
type Mapped<T> =
  { ok: true; value: T } | { ok: false; reason: RejectReason | 'invalid_record'; field?: string; error?: z.ZodError };

/** A zoned instant that passes the date rules, or why not. */
function instantField(
  raw: string,
  asOf: Date,
  field: string,
): { ok: true; iso: string } | { ok: false; reason: RejectReason; field: string } {
  const read = readInstant(raw, 'reject');
  if (!read.ok) return { ok: false, reason: read.reason, field };
  const verdict = judgeInstant(read.iso, asOf);
  return verdict === 'ok' ? { ok: true, iso: read.iso } : { ok: false, reason: verdict, field };
}

/** An optional zoned instant (null when absent) that lies no further ahead of `asOf` than `aheadMs`, or why not. */
function boundedInstant(
  raw: string | null | undefined,
  asOf: Date,
  aheadMs: number,
  field: string,
): { ok: true; iso: string | null } | { ok: false; reason: RejectReason; field: string } {
  if (raw === null || raw === undefined) return { ok: true, iso: null };
  const read = readInstant(raw, 'reject');
  if (!read.ok) return { ok: false, reason: read.reason, field };
  return judgeInstant(read.iso, new Date(asOf.getTime() + aheadMs)) === 'ok'
    ? { ok: true, iso: read.iso }
    : { ok: false, reason: 'future_date', field };
}

/**
 * Pure: the payload's `scheduled_reset` → an Announcement (null when none is announced or it is no longer
 * `scheduled`), or why it was rejected: an announcement time outside the tracked era or in the future, a scheduled
 * time more than 60 days ahead, a link that is not plain http(s) (an observed announcement may have none).
 */
export function computeAnnouncement(
  raw: z.infer<typeof ScheduledResetSchema> | null | undefined,
  asOf: Date,
): Mapped<Announcement | null> {
  if (!raw || (raw.status !== undefined && raw.status !== 'scheduled')) return { ok: true, value: null };
  const announced = instantField(raw.announced_at, asOf, 'announced_at');
  if (!announced.ok) return announced;
  const scheduled = boundedInstant(raw.scheduled_for, asOf, MAX_SCHEDULE_AHEAD_MS, 'scheduled_for');
  if (!scheduled.ok) return scheduled;
  const scheduledFor = scheduled.iso;
  const link = linkOf(raw.source);
  if (!link.ok) return { ok: false, reason: 'bad_url', field: 'source.url' };
  const author = cleanText(raw.source.author ?? '', TEXT_LIMITS.author);
  const parsed = AnnouncementSchema.safeParse({
    // The same id the record gets in `/resets` once applied (reset-tracker.ts), so the two can be matched.
    id: `sr-${stableIdPart(String(raw.id), 77)}`,
    upstream_id: cleanText(String(raw.id), UPSTREAM_ID_MAX_CHARS) || 'unknown',
    type: trackerEventType(raw.reset_type),
    announced_at: announced.iso,
    scheduled_for: scheduledFor,
    text: cleanEvidence(raw.text, TEXT_LIMITS.evidence),
    source:
      link.url === null
        ? null
        : { platform: raw.source.type === 'x_post' ? 'X' : 'web', url: link.url, ...(author ? { author } : {}) },
    first_seen_at: formatInstant(asOf),
  });
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, reason: 'invalid_record', error: parsed.error };
}

/**
 * Pure: the payload's `active_watch` → the tracker's watch (null when none is raised), or why it was rejected. The
 * level is a word (`elevated`, `strong`; an unknown one is kept as written if it is a plain word), the window is
 * display text kept verbatim (cleaned and capped), an expiry more than 30 days ahead is not used.
 */
export function computeWatch(
  raw: z.infer<typeof ActiveWatchSchema> | null | undefined,
  asOf: Date,
): Mapped<TrackerWatch | null> {
  if (!raw) return { ok: true, value: null };
  const level = cleanText(raw.level, 40).toLowerCase();
  if (!/^[a-z][a-z_-]*$/.test(level)) return { ok: false, reason: 'invalid_record', field: 'level' };
  const observed = instantField(raw.observed_at, asOf, 'observed_at');
  if (!observed.ok) return observed;
  const expiresAt = boundedInstant(raw.expires_at, asOf, MAX_WATCH_AHEAD_MS, 'expires_at');
  if (!expiresAt.ok) return expiresAt;
  const expires = expiresAt.iso;
  const link = linkOf(raw.source ?? { type: 'observed' });
  if (!link.ok) return { ok: false, reason: 'bad_url', field: 'source.url' };
  const parsed = TrackerWatchSchema.safeParse({
    level,
    reset_chance_percent: raw.reset_chance_percent ?? null,
    forecast_window: cleanText(raw.forecast_window ?? '', TEXT_LIMITS.title),
    observed_at: observed.iso,
    expires_at: expires,
    text: cleanText(raw.text ?? '', TEXT_LIMITS.excerpt),
    source_url: link.url,
    first_seen_at: formatInstant(asOf),
  });
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, reason: 'invalid_record', error: parsed.error };
}

/** The body → its validated envelope under the tracker's parse budget, or the failed check's detail. */
export function parseTrackerStatus(
  body: string,
  opts: { budget?: ParseBudget; now?: () => number } = {},
): { ok: true; value: z.infer<typeof TrackerStatusSchema> } | { ok: false; detail: Detail } {
  const parsed = parseJsonWithin(body, TrackerStatusSchema, opts.budget ?? TRACKER_PAGE_BUDGET, opts.now);
  return parsed.ok ? { ok: true, value: parsed.value } : parsed;
}

/** What the four parts gave: each value present only when its part was read; `unreadable` names the parts that were not. */
export interface TrackerStatusParts {
  latest?: Event | null;
  announcement?: Announcement | null;
  watch?: TrackerWatch | null;
  statsTotal?: number;
  unreadable: string[];
}

/**
 * Pure: the envelope's `data` → its parts. A part that is missing reads as null (none announced, no watch), as the
 * service omits what it does not have; one that is present but malformed, or fails the date and link rules, is named in
 * `unreadable` (`scheduled_reset.announced_at (future_date)`) and left out, so the state keeps what the last good read
 * of it gave.
 */
export function computeTrackerStatus(data: Readonly<Record<string, unknown>>, asOf: Date): TrackerStatusParts {
  const parts: TrackerStatusParts = { unreadable: [] };
  const read = <S extends z.ZodType, T>(
    name: string,
    schema: S,
    map: (v: z.output<S> | null) => Mapped<T>,
  ): T | undefined => {
    const raw = Object.hasOwn(data, name) ? data[name] : null;
    const parsed = raw === null ? ({ success: true, data: null } as const) : schema.safeParse(raw);
    if (!parsed.success) {
      parts.unreadable.push(`${formatIssuePath([name, ...(parsed.error.issues[0]?.path ?? [])])} (invalid_record)`);
      return undefined;
    }
    const mapped = map(parsed.data as z.output<S> | null);
    if (mapped.ok) return mapped.value;
    const path = mapped.error
      ? formatIssuePath([name, ...(mapped.error.issues[0]?.path ?? [])])
      : `${name}${mapped.field ? `.${mapped.field}` : ''}`;
    parts.unreadable.push(`${path} (${mapped.reason})`);
    return undefined;
  };
  const latest = read('latest_reset', TrackerRecordSchema, (r): Mapped<Event | null> => {
    if (r === null) return { ok: true, value: null };
    const m = computeTrackerEvent(r, asOf);
    return m.ok
      ? { ok: true, value: m.event }
      : {
          ok: false,
          reason: m.reason,
          ...(m.error ? { error: m.error } : {}),
          ...(m.unreadable ? { field: m.unreadable } : {}),
        };
  });
  if (latest !== undefined) parts.latest = latest;
  const announcement = read('scheduled_reset', ScheduledResetSchema, (r) => computeAnnouncement(r, asOf));
  if (announcement !== undefined) parts.announcement = announcement;
  const watch = read('active_watch', ActiveWatchSchema, (r) => computeWatch(r, asOf));
  if (watch !== undefined) parts.watch = watch;
  const stats = read('stats', TrackerStatsSchema, (s): Mapped<number | null> => ({
    ok: true,
    value: s === null ? null : s.total,
  }));
  if (stats !== undefined && stats !== null) parts.statsTotal = stats;
  return parts;
}

/**
 * Reads the status. Its envelope failing (not JSON, no `data` object, over budget) fails the check; a malformed part
 * only names itself in the detail (`ok_with_unreadable_parts`), and the other parts are used.
 */
export async function fetchTrackerStatus(fetcher: Fetcher, config: SourceConfig, asOf: Date): Promise<SourceResult> {
  const r = await fetcher.get(config.url, fetchOptions(config, 'application/json'));
  if (!r.ok) return failedFetchResult(config, asOf, r);
  const base = { http_status: r.status, latency_ms: r.latencyMs };
  const parsed = parseTrackerStatus(r.body);
  if (!parsed.ok)
    return { check: computeCheck(config, asOf, { ...base, ok: false, items_read: 0, detail: parsed.detail }) };
  const parts = computeTrackerStatus(parsed.value.data, asOf);
  const items = [parts.latest, parts.announcement, parts.watch].filter((x) => x !== undefined && x !== null).length;
  const detail: Detail =
    parts.unreadable.length > 0
      ? { code: 'ok_with_unreadable_parts', params: { parts: parts.unreadable.join(', ') } }
      : { code: 'ok', params: {} };
  return {
    check: computeCheck(config, asOf, { ...base, ok: true, items_read: items, detail }),
    ...(parts.latest ? { events: [parts.latest] } : {}),
    ...(parts.announcement !== undefined ? { announcement: parts.announcement } : {}),
    ...(parts.watch !== undefined ? { watch: parts.watch } : {}),
    ...(parts.statsTotal !== undefined ? { stats_total: parts.statsTotal } : {}),
  };
}
