// Source 2b: the upstream reset tracker's status endpoint (`GET /api/v1/status`). Its four parts are read one by one,
// each under its own schema, so a malformed part is named in the check's detail and never fails the others:
// `latest_reset` (a record, so a new reset shows one tick before `/resets` lists it: the service caches this endpoint
// 60 s at its CDN against 300 s for `/resets`), `scheduled_reset` (a reset announced but not applied yet),
// `active_watch` (the tracker's own watch) and `stats` (`total` is compared with the records `/resets` listed).
// Hostile like every source: parsed under a budget (budget.ts), text and links cleaned and dates judged (sanitize.ts).
import { z } from 'zod';
import { formatInstant } from '../contract.ts';
import type { SourceResult } from '../model/inputs.ts';
import { AnnouncementSchema, TrackerWatchSchema, type Announcement, type Detail } from '../model/schemas.ts';
import { formatIssuePath, parseJsonWithin } from './budget.ts';
import { readInstant } from './instant.ts';
import { readSource, type Fetcher, type SourceConfig, type SourceRead } from './fetcher.ts';
import {
  citedSource,
  computeTrackerEvent,
  refused,
  trackerEventType,
  TrackerRecordSchema,
  TrackerSourceSchema,
  validated,
  type RecordRead,
} from './reset-tracker.ts';
import { cleanEvidence, cleanText, judgedInstant, judgeInstant, stableIdPart, TEXT_LIMITS } from './sanitize.ts';

const UPSTREAM_ID_MAX_CHARS = 120;
/** An announced time further ahead than this is not a plausible announcement of a reset (a crafted date). */
export const MAX_SCHEDULE_AHEAD_MS = 60 * 24 * 60 * 60 * 1000;
/** A watch that claims to last longer than this is not a plausible watch (a crafted date): its end is not used. */
const MAX_WATCH_AHEAD_MS = 30 * 24 * 60 * 60 * 1000;

const ScheduledResetSchema = z.object({
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

const ActiveWatchSchema = z.object({
  level: z.string().min(1),
  reset_chance_percent: z.number().min(0).max(100).nullable().optional(),
  forecast_window: z.string().nullable().optional(),
  observed_at: z.string(),
  expires_at: z.string().nullable().optional(),
  text: z.string().nullable().optional(),
  source: TrackerSourceSchema.nullable().optional(),
});

/** An optional zoned instant (null when absent) that lies no further ahead of `asOf` than `aheadMs`, or why not. */
export function boundedInstant(raw: string | null | undefined, asOf: Date, aheadMs: number, field: string) {
  if (raw === null || raw === undefined) return { ok: true, iso: null } as const;
  const read = readInstant(raw, 'reject');
  if (!read.ok) return refused(read.reason, field);
  const ok = judgeInstant(read.iso, new Date(asOf.getTime() + aheadMs)) === 'ok';
  return ok ? ({ ok: true, iso: read.iso } as const) : refused('future_date', field);
}

/**
 * Pure: the payload's `scheduled_reset` → an Announcement (null when none is announced or it is no longer
 * `scheduled`), or why it was rejected: an announcement time outside the tracked era or in the future, a scheduled
 * time more than 60 days ahead, a link that is not plain http(s) (an observed announcement may have none).
 */
function computeAnnouncement(raw: z.infer<typeof ScheduledResetSchema>, asOf: Date): RecordRead<Announcement | null> {
  if (raw.status !== undefined && raw.status !== 'scheduled') return { ok: true, value: null } as const;
  const announced = judgedInstant(raw.announced_at, asOf);
  if (!announced.ok) return refused(announced.reason, 'announced_at');
  const scheduled = boundedInstant(raw.scheduled_for, asOf, MAX_SCHEDULE_AHEAD_MS, 'scheduled_for');
  if (!scheduled.ok) return scheduled;
  const cited = citedSource(raw.source);
  if (!cited.ok) return refused('bad_url', 'source', 'url');
  return validated(AnnouncementSchema, {
    // The same id the record gets in `/resets` once applied (reset-tracker.ts), so the two can be matched.
    id: `sr-${stableIdPart(String(raw.id), 77)}`,
    upstream_id: cleanText(String(raw.id), UPSTREAM_ID_MAX_CHARS) || 'unknown',
    type: trackerEventType(raw.reset_type),
    announced_at: announced.iso,
    scheduled_for: scheduled.iso,
    text: cleanEvidence(raw.text, TEXT_LIMITS.evidence),
    source: cited.source,
    first_seen_at: formatInstant(asOf),
  });
}

/**
 * Pure: the payload's `active_watch` → the tracker's watch, or why it was rejected. The level is a word (`elevated`,
 * `strong`; an unknown one is kept as written if it is a plain word), the window is display text kept verbatim
 * (cleaned and capped), an expiry more than 30 days ahead is not used.
 */
function computeWatch(raw: z.infer<typeof ActiveWatchSchema>, asOf: Date) {
  const level = cleanText(raw.level, 40).toLowerCase();
  if (!/^[a-z][a-z_-]*$/.test(level)) return refused('invalid_record', 'level');
  const observed = judgedInstant(raw.observed_at, asOf);
  if (!observed.ok) return refused(observed.reason, 'observed_at');
  const expires = boundedInstant(raw.expires_at, asOf, MAX_WATCH_AHEAD_MS, 'expires_at');
  if (!expires.ok) return expires;
  const cited = citedSource(raw.source ?? { type: 'observed' });
  if (!cited.ok) return refused('bad_url', 'source', 'url');
  return validated(TrackerWatchSchema, {
    level,
    reset_chance_percent: raw.reset_chance_percent ?? null,
    forecast_window: cleanText(raw.forecast_window ?? '', TEXT_LIMITS.title),
    observed_at: observed.iso,
    expires_at: expires.iso,
    text: cleanText(raw.text ?? '', TEXT_LIMITS.excerpt),
    source_url: cited.source?.url ?? null,
    first_seen_at: formatInstant(asOf),
  });
}

/**
 * Pure: the envelope's `data` → its parts. A part that is missing reads as null (none announced, no watch), as the
 * service omits what it does not have; one that is present but malformed, or fails the date and link rules, is named
 * in the detail (`ok_with_unreadable_parts`: `scheduled_reset.announced_at (future_date)`) and left out of the
 * result, so the state keeps what the last good read of it gave.
 */
function computeTrackerStatus(data: Readonly<Record<string, unknown>>, asOf: Date): SourceRead {
  const unreadable: string[] = [];
  // A part read, or why not: the failing path inside the part (a zod issue's, or the field a rule refused) and reason.
  const read = <S extends z.ZodType, T>(name: string, schema: S, map: (v: z.output<S>) => RecordRead<T>) => {
    const raw = Object.hasOwn(data, name) ? data[name] : null;
    if (raw === null) return null;
    const parsed = validated(schema, raw);
    const mapped = parsed.ok ? map(parsed.value) : parsed;
    if (mapped.ok) return mapped.value;
    unreadable.push(`${formatIssuePath([name, ...(mapped.path ?? [])])} (${mapped.reason})`);
    return undefined;
  };
  const latest = read('latest_reset', TrackerRecordSchema, (r) => computeTrackerEvent(r, asOf));
  const announcement = read('scheduled_reset', ScheduledResetSchema, (r) => computeAnnouncement(r, asOf));
  const watch = read('active_watch', ActiveWatchSchema, (r) => computeWatch(r, asOf));
  const StatsSchema = z.object({ total: z.number().int().nonnegative() }).loose();
  const stats = read('stats', StatsSchema, (s) => ({ ok: true, value: s.total }));
  const parts = unreadable.join(', ');
  const detail: Detail = parts ? { code: 'ok_with_unreadable_parts', params: { parts } } : { code: 'ok', params: {} };
  const items = [latest, announcement, watch].filter((x) => x !== undefined && x !== null).length;
  const result = {
    ...(latest ? { events: [latest] } : {}),
    ...(announcement !== undefined ? { announcement } : {}),
    ...(watch !== undefined ? { watch } : {}),
    ...(stats !== undefined && stats !== null ? { stats_total: stats } : {}),
  };
  return { ok: true, items, detail, data: result };
}

/**
 * Reads the status. Its envelope failing (not JSON, no `data` object, over budget) fails the check; a malformed part
 * only names itself in the detail, and the other parts are used.
 */
export function fetchTrackerStatus(fetcher: Fetcher, config: SourceConfig, asOf: Date): Promise<SourceResult> {
  const EnvelopeSchema = z.object({ data: z.record(z.string(), z.unknown()) });
  return readSource(fetcher, config, asOf, { accept: 'application/json' }, (body) =>
    parseJsonWithin(body, EnvelopeSchema, (envelope) => computeTrackerStatus(envelope.data, asOf)),
  );
}
