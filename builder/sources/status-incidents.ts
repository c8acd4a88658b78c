// Source 1b: the status page's own incident feed. status.openai.com is served by incident.io, whose
// Statuspage-compatible summary lists no incidents; they are at `/proxy/<page host>/incidents`. A separate check, so
// the feed can fail (a 404 page, a timeout, a new shape) without failing the summary, and the other way round.
import { z } from 'zod';
import { SIGNAL_WINDOW_MS } from '../model/apply.ts';
import type { Detail, Signal } from '../model/schemas.ts';
import type { SourceResult } from '../model/inputs.ts';
import { urlOrigin } from '../contract.ts';
import { parseJsonWithin, schemaMismatch } from './budget.ts';
import { readSource, type Fetcher, type SourceConfig, type SourceRead } from './fetcher.ts';
import { readInstant } from './instant.ts';
import { capList, cleanUrl, count, judgedInstant, readDetail, type RejectCounts } from './sanitize.ts';
import { codexComponentIds, incidentSignalOf, mentionsCodex } from './status-page.ts';

/** Incidents read from one answer (the feed lists recent ones; the capture holds 5); more are counted, not read. */
export const MAX_FEED_INCIDENTS = 100;
/** Updates read per incident (only the newest is shown); more are counted, not read. */
export const MAX_INCIDENT_UPDATES = 50;
/** Component references read per incident, in each of its two lists; more are counted, not read. */
const MAX_INCIDENT_COMPONENTS = 100;

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

/** The component references an incident names, in both of incident.io's lists. */
function componentRefs(i: FeedIncident, rejected: RejectCounts = {}) {
  return [
    ...capList(i.affected_components, MAX_INCIDENT_COMPONENTS, rejected),
    ...capList(i.component_impacts, MAX_INCIDENT_COMPONENTS, rejected),
  ];
}

/** The newest update with words (by its own zoned time; list order when none is readable), else null. */
function newestMessage(i: FeedIncident, rejected: RejectCounts): string | null {
  let best: { ms: number; message: string } | null = null;
  for (const u of capList(i.updates, MAX_INCIDENT_UPDATES, rejected)) {
    if (!u.message_string || u.message_string.trim() === '') continue;
    const read = readInstant(u.published_at, 'reject');
    const ms = read.ok ? Date.parse(read.iso) : -Infinity;
    if (best === null || ms > best.ms) best = { ms, message: u.message_string };
  }
  return best?.message ?? null;
}

/** Without an update's words: the incident's state and the impacts it lists, as plain words (`resolved, impact: full_outage`). */
function fallbackExcerpt(i: FeedIncident): string {
  const statuses = componentRefs(i).map((c) => c.status);
  const impacts = [...new Set(statuses.filter((s): s is string => typeof s === 'string' && PLAIN_WORD.test(s)))];
  const impact = impacts.slice(0, 5).join(' ');
  return [i.status, impact && `impact: ${impact}`].filter(Boolean).join(', ');
}

/**
 * A Codex incident published within the signal window → a `status_incident` signal; an older one → null, not counted
 * (the feed keeps months of history). A missing, zone-less, unreadable, far-future or pre-era `published_at` is
 * refused and counted: an undated incident could never leave the review queue.
 */
function incidentSignal(config: SourceConfig, i: FeedIncident, asOf: Date, rejected: RejectCounts): Signal | null {
  const at = judgedInstant(i.published_at, asOf);
  if (!at.ok) {
    count(rejected, at.reason);
    return null;
  }
  if (Date.parse(at.iso) < asOf.getTime() - SIGNAL_WINDOW_MS) return null;
  // The page's own page of the incident, on the feed's scheme and host (never more of the configured URL).
  const origin = urlOrigin(config.url);
  const url = origin !== null && LINKABLE_ID.test(i.id) ? cleanUrl(`${origin}/incidents/${i.id}`) : null;
  return incidentSignalOf(config, asOf, i, newestMessage(i, rejected) ?? fallbackExcerpt(i), url, at.iso);
}

/**
 * Reads the feed: the Codex incidents of the signal window as signals. An incident is Codex's when it affects a
 * Codex component id (the configured list) or its name mentions Codex. `items` counts every incident of valid shape,
 * not only Codex's; malformed ones are counted as `invalid_record`, and a feed with incidents but none readable is a
 * `schema_mismatch`.
 */
export function fetchStatusIncidents(fetcher: Fetcher, config: SourceConfig, asOf: Date): Promise<SourceResult> {
  const read = (feed: z.infer<typeof IncidentFeedSchema>): SourceRead => {
    const rejected: RejectCounts = {};
    const incidents: FeedIncident[] = [];
    let firstProblem: Detail | null = null;
    for (const [n, raw] of capList(feed.incidents, MAX_FEED_INCIDENTS, rejected).entries()) {
      const r = FeedIncidentSchema.safeParse(raw);
      if (r.success) incidents.push(r.data);
      else {
        count(rejected, 'invalid_record');
        firstProblem ??= schemaMismatch(r.error, ['incidents', n]);
      }
    }
    if (incidents.length === 0 && firstProblem !== null) return { ok: false, detail: firstProblem };
    const ids = codexComponentIds(config);
    const signals = incidents
      .filter(
        (i) =>
          componentRefs(i, rejected).some((c) => typeof c.component_id === 'string' && ids.has(c.component_id)) ||
          mentionsCodex(i.name),
      )
      .flatMap((i) => incidentSignal(config, i, asOf, rejected) ?? []);
    return { ok: true, items: incidents.length, detail: readDetail('ok', {}, rejected), data: { signals } };
  };
  return readSource(fetcher, config, asOf, { accept: 'application/json' }, (body) =>
    parseJsonWithin(body, IncidentFeedSchema, read),
  );
}
