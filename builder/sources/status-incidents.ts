// Source 1b: the status page's own incident feed. status.openai.com is served by incident.io, whose
// Statuspage-compatible summary lists no incidents; they are at `/proxy/<page host>/incidents`. A separate check, so
// the feed can fail (a 404 page, a timeout, a new shape) without failing the summary, and the other way round.
import { z } from 'zod';
import { formatInstant } from '../contract.ts';
import { SIGNAL_WINDOW_MS } from '../model/apply.ts';
import type { Detail, Signal } from '../model/schemas.ts';
import type { SourceResult } from '../model/inputs.ts';
import { STATUS_INCIDENTS_BUDGET, type ParseBudget } from './budget.ts';
import {
  computeCheck,
  failedFetchResult,
  fetchOptions,
  parseJsonWithin,
  readDetail,
  schemaMismatch,
  stableIdPart,
} from './common.ts';
import type { Fetcher, SourceConfig } from './fetcher.ts';
import { readInstant } from './instant.ts';
import { cleanText, cleanUrl, countReject, judgeInstant, TEXT_LIMITS, type RejectCounts } from './sanitize.ts';
import { codexComponentIds, mentionsCodex } from './status-page.ts';

/** Incidents read from one answer (the feed lists recent ones; the capture holds 5); more are counted, not read. */
export const MAX_FEED_INCIDENTS = 100;
/** Updates read per incident (only the newest is shown); more are counted, not read. */
export const MAX_INCIDENT_UPDATES = 50;
/** Component references read per incident, in each of its two lists; more are counted, not read. */
export const MAX_INCIDENT_COMPONENTS = 100;

const text = z.string().nullish();
const ComponentRefSchema = z.object({ component_id: text, status: text });

/** One incident as incident.io writes it; unknown keys are ignored, a missing list is an empty one. */
const FeedIncidentSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  status: text,
  published_at: text,
  affected_components: z.array(ComponentRefSchema).nullish(),
  component_impacts: z.array(ComponentRefSchema).nullish(),
  updates: z.array(z.object({ to_status: text, message_string: text, published_at: text })).nullish(),
});
type FeedIncident = z.infer<typeof FeedIncidentSchema>;

/** The envelope is strict (an `incidents` list); each incident is read on its own, so one malformed entry is counted, not fatal. */
const IncidentFeedSchema = z.object({ incidents: z.array(z.unknown()) });

/** An incident.io id as a link path segment (ULIDs are 26 of these characters). */
const LINKABLE_ID = /^[0-9A-Za-z]{1,64}$/;
const PLAIN_WORD = /^[a-z_]{1,40}$/;

function capped<T>(list: readonly T[] | null | undefined, max: number, rejected: RejectCounts): readonly T[] {
  if (!list) return [];
  if (list.length > max) countReject(rejected, 'over_item_cap', list.length - max);
  return list.slice(0, max);
}

/** The component ids an incident names, in both of incident.io's lists. */
function componentIds(i: FeedIncident, rejected: RejectCounts): string[] {
  return [
    ...capped(i.affected_components, MAX_INCIDENT_COMPONENTS, rejected),
    ...capped(i.component_impacts, MAX_INCIDENT_COMPONENTS, rejected),
  ]
    .map((c) => c.component_id)
    .filter((id): id is string => typeof id === 'string');
}

/** The newest update with words (by its own zoned time; list order when none is readable), else null. */
function newestMessage(i: FeedIncident, rejected: RejectCounts): string | null {
  let best: { ms: number; message: string } | null = null;
  for (const u of capped(i.updates, MAX_INCIDENT_UPDATES, rejected)) {
    if (!u.message_string || u.message_string.trim() === '') continue;
    const read = readInstant(u.published_at, 'reject');
    const ms = read.ok ? Date.parse(read.iso) : -Infinity;
    if (best === null || ms > best.ms) best = { ms, message: u.message_string };
  }
  return best?.message ?? null;
}

/** Without an update's words: the incident's state and the impacts it lists, as plain words (`resolved, impact: full_outage`). */
function fallbackExcerpt(i: FeedIncident): string {
  const refs = [
    ...(i.affected_components ?? []).slice(0, MAX_INCIDENT_COMPONENTS),
    ...(i.component_impacts ?? []).slice(0, MAX_INCIDENT_COMPONENTS),
  ];
  const impacts = [
    ...new Set(refs.map((c) => c.status).filter((s): s is string => typeof s === 'string' && PLAIN_WORD.test(s))),
  ];
  return [i.status ?? '', impacts.length > 0 ? `impact: ${impacts.slice(0, 5).join(' ')}` : '']
    .filter(Boolean)
    .join(', ');
}

/**
 * A Codex incident published within the signal window → a `status_incident` signal; an older one → null, not counted
 * (the feed keeps months of history). A missing, zone-less, unreadable, far-future or pre-era `published_at` is
 * refused and counted: an undated incident could never leave the review queue.
 */
function incidentSignal(
  config: SourceConfig,
  origin: string | null,
  i: FeedIncident,
  asOf: Date,
  rejected: RejectCounts,
): Signal | null {
  const read = readInstant(i.published_at, 'reject');
  if (!read.ok) {
    countReject(rejected, read.reason);
    return null;
  }
  const verdict = judgeInstant(read.iso, asOf);
  if (verdict !== 'ok') {
    countReject(rejected, verdict);
    return null;
  }
  if (Date.parse(read.iso) < asOf.getTime() - SIGNAL_WINDOW_MS) return null;
  // The page's own page of the incident, on the feed's scheme and host (never more of the configured URL).
  const url = origin !== null && LINKABLE_ID.test(i.id) ? cleanUrl(`${origin}/incidents/${i.id}`) : null;
  return {
    id: `status-incident-${stableIdPart(i.id, 100)}`,
    kind: 'status_incident',
    source: config.id,
    title: cleanText(i.name, TEXT_LIMITS.title),
    excerpt: cleanText(newestMessage(i, rejected) ?? fallbackExcerpt(i), TEXT_LIMITS.excerpt),
    url,
    published_at: read.iso,
    first_seen_at: formatInstant(asOf),
    review: 'awaiting_review',
    promoted_to: null,
  };
}

function originOf(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? `${u.protocol}//${u.host}` : null;
  } catch {
    return null;
  }
}

export type ParsedIncidentFeed =
  { ok: true; read: number; signals: Signal[]; rejected: RejectCounts } | { ok: false; detail: Detail };

/**
 * Pure: a feed body → the Codex incidents of the signal window as signals. An incident is Codex's when it affects a
 * Codex component id (the configured list) or its name mentions Codex. `read` counts the incidents of valid shape;
 * malformed ones are counted as `invalid_record`, and a feed with incidents but none readable is a `schema_mismatch`.
 */
export function parseIncidentFeed(
  config: SourceConfig,
  body: string,
  asOf: Date,
  opts: { budget?: ParseBudget; now?: () => number } = {},
): ParsedIncidentFeed {
  const parsed = parseJsonWithin(body, IncidentFeedSchema, opts.budget ?? STATUS_INCIDENTS_BUDGET, opts.now);
  if (!parsed.ok) return parsed;
  const rejected: RejectCounts = {};
  const incidents: FeedIncident[] = [];
  let firstProblem: Detail | null = null;
  const listed = capped(parsed.value.incidents, MAX_FEED_INCIDENTS, rejected);
  for (const [n, raw] of listed.entries()) {
    const r = FeedIncidentSchema.safeParse(raw);
    if (r.success) incidents.push(r.data);
    else {
      countReject(rejected, 'invalid_record');
      firstProblem ??= schemaMismatch(r.error, ['incidents', n]);
    }
  }
  if (incidents.length === 0 && firstProblem !== null) return { ok: false, detail: firstProblem };
  const ids = codexComponentIds(config);
  const origin = originOf(config.url);
  const signals = incidents
    .filter((i) => componentIds(i, rejected).some((id) => ids.has(id)) || mentionsCodex(i.name))
    .map((i) => incidentSignal(config, origin, i, asOf, rejected))
    .filter((s) => s !== null);
  const over = parsed.clock.over();
  return over ? { ok: false, detail: over } : { ok: true, read: incidents.length, signals, rejected };
}

/** Fetches and reads the incident feed. `items_read` counts every incident of valid shape, not only Codex's. */
export async function fetchStatusIncidents(fetcher: Fetcher, config: SourceConfig, asOf: Date): Promise<SourceResult> {
  const r = await fetcher.get(config.url, fetchOptions(config, 'application/json'));
  if (!r.ok) return failedFetchResult(config, asOf, r);
  const base = { http_status: r.status, latency_ms: r.latencyMs };
  const parsed = parseIncidentFeed(config, r.body, asOf);
  if (!parsed.ok)
    return { check: computeCheck(config, asOf, { ...base, ok: false, items_read: 0, detail: parsed.detail }) };
  return {
    check: computeCheck(config, asOf, {
      ...base,
      ok: true,
      items_read: parsed.read,
      detail: readDetail('ok', {}, parsed.rejected),
    }),
    signals: parsed.signals,
  };
}
