// Source 4: codex-reset.com's timeline (`GET /api/timeline`), a reset tracker independent of codex-resets.com, records
// with origin `reset_timeline`. Its terms allow one poll a minute and ask that 429 and Retry-After be honoured: one
// request a run, never retried within it; a 429's wait comes back in the check (`rate_limited_wait`, `retry_after_s`).
// It holds about sixty records; at most MAX_RECORDS_PER_RUN are read, each cleaned and judged as every source's
// (sanitize.ts). Every record read gets a label (its words, how we read it), reset or not, so the trackers can be
// compared post by post. What a record is to us, from the 2026-09-11 capture and the posts' words (docs/sources.md):
// a reply is not a reset ("Soon, but not today"); `credits` is a banked grant; `boost`, `unlock` and unknown groups
// are not resets, whatever the post says; `reset` is a global reset when `announcement_state` is `announced` or absent
// (its archive), an observation when `operator-observed`; in any other state (`none`) the tracker does not confirm
// it: no event, but an announcement while its `official_window` lies ahead.
import { z } from 'zod';
import { formatInstant } from '../contract.ts';
import { timesFromPost, xPostId } from '../model/evidence.ts';
import type { SourceResult } from '../model/inputs.ts';
import {
  AnnouncementSchema,
  SourceLabelSchema,
  type Announcement,
  type Detail,
  type Event,
  type SourceLabel,
} from '../model/schemas.ts';
import { parseJsonWithin } from './budget.ts';
import { readSource, type Fetcher, type SourceConfig, type SourceRead } from './fetcher.ts';
import {
  archivedEvent,
  MAX_RECORDS_PER_RUN,
  schemaMismatch,
  usablePost,
  validated,
  type RecordCounts,
  type RecordRead,
} from './reset-tracker.ts';
import {
  cleanEvidence,
  cleanText,
  cleanUrl,
  count,
  judgedInstant,
  readDetail,
  stableIdPart,
  TEXT_LIMITS,
} from './sanitize.ts';
import { boundedInstant, MAX_SCHEDULE_AHEAD_MS } from './tracker-status.ts';

const KNOWN_GROUPS = new Set(['reset', 'credits', 'boost', 'unlock']);

/** Only the documented fields; the window's label, end and time zone are display text and not read. */
const TimelineRecordSchema = z.object({
  id: z.union([z.string().min(1), z.number()]),
  // Plain strings: a word added upstream is a record we do not count as a reset, never a failure of the source.
  group: z.string(),
  reset_kind: z.string().nullish(),
  announcement_state: z.string().nullish(),
  source: z.string().nullish(),
  is_reply: z.boolean().nullish(),
  official_window: z.object({ start_at: z.string().nullish(), target_at: z.string().nullish() }).nullish(),
  text: z.string().nullish(),
  // Checked by cleanUrl and the date rules, so a bad value is counted as bad_url or by its date reason.
  url: z.string().nullish(),
  announced_at: z.string().nullish(),
  effective_at: z.string().nullish(),
  observed_at: z.string().nullish(),
});
type TimelineRecord = z.infer<typeof TimelineRecordSchema>;

/** How a record reads (the rules above; an `unconfirmed` one may still be an announcement, decided on its window). */
function readingOf(r: TimelineRecord): SourceLabel['reads_as'] {
  if (r.is_reply === true) return 'not_a_reset';
  if (r.group === 'credits') return 'banked_grant';
  if (r.group !== 'reset') return 'not_a_reset';
  return r.announcement_state === 'announced' || r.announcement_state == null ? 'global_reset' : 'unconfirmed';
}

/** The tracker's own words for the record: `reset/hard/announced/live`, `credits/banked/archive`, `reset/none/reply/live`. */
function labelOf(r: TimelineRecord): string {
  const words = [r.group, r.reset_kind, r.announcement_state, r.is_reply === true ? 'reply' : null, r.source];
  const clean = words.map((w) => cleanText(w ?? '', 40)).filter((w) => w !== '');
  return clean.join('/').slice(0, 120) || 'unlabelled';
}

type Read = { label: SourceLabel; event: Event | null; announcement: Announcement | null };

/**
 * Pure: one record → its label, event and announcement (null: none), or why it was refused. A cited X post dates
 * an announced record (as reset-tracker.ts); an `operator-observed` record is dated by its own time, its post kept
 * as evidence only.
 */
function readRecord(r: TimelineRecord, source: string, asOf: Date, counts: RecordCounts): RecordRead<Read> {
  const observation = r.source === 'operator-observed';
  const field = observation && r.observed_at != null ? 'observed_at' : 'announced_at';
  const time = judgedInstant(r[field], asOf);
  if (!time.ok)
    return time.reason === 'future_date' || time.reason === 'before_era' ? time : { ...time, path: [field] };
  const at = time.iso;
  const url = cleanUrl(r.url);
  if (url === null && (r.url ?? '').trim() !== '') return { ok: false, reason: 'bad_url' };
  const sources = url === null ? [] : [{ platform: xPostId(url) === null ? 'web' : 'X', url }];
  // The post time is upstream data too (a crafted id encodes any date): one that fails the date rules is not used.
  const { post, verdict } = usablePost(sources, asOf);
  if (verdict !== 'ok') count(counts.rejected, verdict);
  const times = observation
    ? { announced_at: null, observed_at: at, time_basis: 'observation' as const }
    : timesFromPost(at, post ? sources : []);
  const effective = r.effective_at == null ? null : judgedInstant(r.effective_at, asOf);
  if (effective?.ok === false) count(counts.rejected, effective.reason);
  if (url === null) count(counts.noted, 'no_link');
  if (!KNOWN_GROUPS.has(r.group)) count(counts.noted, 'unknown_group');

  const id = `rt-${stableIdPart(String(r.id), 77)}`;
  const quote = cleanEvidence(r.text ?? '', TEXT_LIMITS.evidence);
  const reading = readingOf(r);
  const type = reading === 'global_reset' || reading === 'banked_grant' ? reading : null;
  let announcement: Announcement | null = null;
  if (reading === 'unconfirmed' && r.official_window) {
    const which = r.official_window.target_at != null ? 'target_at' : 'start_at';
    const when = boundedInstant(r.official_window[which], asOf, MAX_SCHEDULE_AHEAD_MS, which);
    if (!when.ok) count(counts.rejected, when.reason);
    else if (when.iso !== null && when.iso > formatInstant(asOf)) {
      const parsed = validated(AnnouncementSchema, {
        id,
        upstream_id: cleanText(String(r.id), 120) || 'unknown',
        type: 'global_reset',
        announced_at: times.announced_at ?? at,
        scheduled_for: when.iso,
        text: quote,
        source: sources[0] ?? null,
        first_seen_at: formatInstant(asOf),
      });
      if (!parsed.ok) return parsed;
      announcement = parsed.value;
    }
  }
  const label = validated(SourceLabelSchema, {
    source,
    record_id: stableIdPart(String(r.id), 120),
    post_id: post?.id ?? null,
    at,
    label: labelOf(r),
    reads_as: announcement ? 'announcement' : reading,
    quote,
  });
  if (!label.ok) return label;
  if (type === null) return { ok: true, value: { label: label.value, event: null, announcement } };
  const effective_at = effective?.ok ? effective.iso : null;
  const event = archivedEvent(
    { id, type, origin: 'reset_timeline', effective_at, evidence_text: quote, sources },
    times,
  );
  return event.ok ? { ok: true, value: { label: label.value, event: event.value, announcement } } : event;
}

/**
 * Pure: the timeline's records → labels, events and the newest announcement, at most MAX_RECORDS_PER_RUN of them
 * (the rest counted as over_record_cap, detail `record_cap_reached`). A repeated id keeps its first (newest) record.
 * Not one valid record among them is a changed API: the check fails as schema_mismatch, naming the first bad path.
 */
function readTimeline(records: readonly unknown[], source: string, asOf: Date): SourceRead {
  const counts: RecordCounts = { rejected: {}, noted: {} };
  const labels = new Map<string, SourceLabel>();
  const events: Event[] = [];
  let announcement: Announcement | null = null;
  let invalid: Detail | null = null;
  const capped = records.length > MAX_RECORDS_PER_RUN;
  if (capped) count(counts.rejected, 'over_record_cap', records.length - MAX_RECORDS_PER_RUN);
  for (const [i, raw] of records.slice(0, MAX_RECORDS_PER_RUN).entries()) {
    const record = validated(TimelineRecordSchema, raw);
    const read = record.ok ? readRecord(record.value, source, asOf, counts) : record;
    if (!read.ok) {
      count(counts.rejected, read.reason);
      if (invalid === null && read.path) invalid = schemaMismatch('events', i, read.reason, read.path);
      continue;
    }
    const { label, event, announcement: a } = read.value;
    if (labels.has(label.record_id)) continue;
    labels.set(label.record_id, label);
    if (event) events.push(event);
    if (a && (announcement === null || a.announced_at > announcement.announced_at)) announcement = a;
  }
  if (labels.size === 0 && invalid !== null) return { ok: false, detail: invalid };
  const [code, params] = capped ? ['record_cap_reached', { max: MAX_RECORDS_PER_RUN }] : ['ok', {}];
  const detail = readDetail(code, params, counts.rejected, counts.noted);
  return { ok: true, items: labels.size, detail, data: { events, labels: [...labels.values()], announcement } };
}

/** Reads the timeline once (no retry: see above). A failed fetch or an unreadable body is a failed check, no data. */
export function fetchResetTimeline(fetcher: Fetcher, config: SourceConfig, asOf: Date): Promise<SourceResult> {
  const TimelineSchema = z.object({ events: z.array(z.unknown()) });
  return readSource(fetcher, config, asOf, { accept: 'application/json', retries: 0 }, (body) =>
    parseJsonWithin(body, TimelineSchema, (page) => readTimeline(page.events, config.id, asOf)),
  );
}
