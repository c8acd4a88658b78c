// Source 1: the official upstream status page (Atlassian Statuspage v2 summary, or incident.io's variant of it). The
// incident.io variant lists no incidents: they come from its own feed, status-incidents.ts.
import { formatInstant } from '../contract.ts';
import { z } from 'zod';
import { ComponentStatusSchema, type Signal, type UpstreamStatus } from '../model/schemas.ts';
import type { SourceResult } from '../model/inputs.ts';
import { JSON_BUDGET, parseJsonWithin, type ParseBudget } from './budget.ts';
import { readSource, type Fetcher, type SourceConfig, type SourceRead } from './fetcher.ts';
import {
  capList,
  cleanText,
  cleanUrl,
  count,
  judgedInstant,
  readDetail,
  stableIdPart,
  TEXT_LIMITS,
  type RejectCounts,
} from './sanitize.ts';

/** More components than any real page has; the rest are counted (over_item_cap), not read. */
const MAX_COMPONENTS = 500;
/** Open incidents listed at once; more is a flood, counted and not read. */
const MAX_INCIDENTS = 100;

/**
 * The Codex group of status.openai.com, by component id (the ids of the September 2026 captures, docs/sources.md).
 * Membership, not the name: `CLI` and `VS Code extension` are Codex components whose names do not say so.
 * RESET_STATUS_CODEX_COMPONENTS replaces the list.
 */
const DEFAULT_CODEX_COMPONENT_IDS: readonly string[] = [
  '01JVCV8YSWZFRSM1G5CVP253SK', // Codex Web
  '01KMP3KP5MGE23B80K1EK4S8PV', // Codex API
  '01KMKFAMWKNQ84Z1766MV08ZDE', // CLI
  '01KMP3KP5M8X0EBTVW6KN327EE', // VS Code extension
  '01KMKFAMWKQ81YWSE1Z18R6VHR', // Codex in ChatGPT Desktop
];

export const codexComponentIds = (config: SourceConfig): ReadonlySet<string> =>
  new Set(config.codexComponents ?? DEFAULT_CODEX_COMPONENT_IDS);

/** An upstream name that names Codex (`Codex Web`, `Issues with Codex`); the fallback when no listed id is on the page. */
export const mentionsCodex = (name: string): boolean => /\bcodex\b/i.test(name);

const IncidentSchema = z.object({
  id: z.string(),
  name: z.string(),
  status: z.string(),
  impact: z.string().nullish(),
  shortlink: z.string().nullish(),
  created_at: z.string().nullish(),
  started_at: z.string().nullish(),
  incident_updates: z.array(z.object({ body: z.string().nullish(), status: z.string().nullish() })).optional(),
  components: z.array(z.object({ id: z.string().nullish(), name: z.string() })).optional(),
});

/** Atlassian Statuspage v2 `summary.json`; incident.io serves the same path without the two incident lists. */
const StatusSummarySchema = z.object({
  page: z.object({ id: z.string(), name: z.string(), url: z.string(), updated_at: z.string().nullish() }),
  status: z.object({ indicator: z.string(), description: z.string() }),
  // Component status is a plain string: upstream adds values (e.g. `under_maintenance`) and an unknown one must not
  // turn the whole source into a failure.
  components: z.array(z.object({ id: z.string(), name: z.string(), status: z.string() })),
  incidents: z.array(IncidentSchema).optional(),
  scheduled_maintenances: z.array(z.unknown()).optional(),
});
type StatusSummary = z.infer<typeof StatusSummarySchema>;

/** A status incident (of the summary or of incident.io's feed) as a signal awaiting review, its words cleaned. */
export function incidentSignalOf(
  config: SourceConfig,
  asOf: Date,
  i: { id: string; name: string },
  excerpt: string,
  url: string | null,
  published: string | null,
): Signal {
  return {
    id: `status-incident-${stableIdPart(i.id, 100)}`,
    kind: 'status_incident',
    source: config.id,
    title: cleanText(i.name, TEXT_LIMITS.title),
    excerpt: cleanText(excerpt, TEXT_LIMITS.excerpt),
    url,
    published_at: published,
    first_seen_at: formatInstant(asOf),
    review: 'awaiting_review',
    promoted_to: null,
  };
}

/**
 * Pure: a parsed summary → our UpstreamStatus (the Codex components: those whose id is listed, or when none of the
 * listed ids is on the page, those whose name mentions Codex; upstream words cleaned and capped) and Codex incident
 * signals (Statuspage lists them; incident.io does not). `updated_at` is the page's own time, not when we read it.
 */
function computeStatusPage(config: SourceConfig, summary: StatusSummary, asOf: Date) {
  const rejected: RejectCounts = {};
  const pageUrl = cleanUrl(summary.page.url);
  if (pageUrl === null) count(rejected, 'bad_url');
  // The page's own time passes the date rules every record does (a page dated 9999-12-31 is as hostile as a record
  // dated so): without a zone, far ahead of `asOf` or before the tracked era it is published as null, and counted.
  const updated = summary.page.updated_at?.trim() ? judgedInstant(summary.page.updated_at, asOf) : null;
  if (updated?.ok === false) count(rejected, updated.reason);
  const components = capList(summary.components, MAX_COMPONENTS, rejected);
  const incidents = capList(summary.incidents, MAX_INCIDENTS, rejected);
  const ids = codexComponentIds(config);
  const listed = components.filter((c) => ids.has(c.id));
  const codex = listed.length > 0 ? listed : components.filter((c) => mentionsCodex(c.name));
  const status: UpstreamStatus = {
    page_url: pageUrl ?? '',
    indicator: cleanText(summary.status.indicator, TEXT_LIMITS.status_description),
    description: cleanText(summary.status.description, TEXT_LIMITS.status_description),
    updated_at: updated?.ok ? updated.iso : null,
    // A status is the page's own word (incident.io's `full_outage` included), kept as written when it is a plain word.
    components: codex.map((c) => ({
      id: cleanText(c.id, TEXT_LIMITS.id),
      name: cleanText(c.name, TEXT_LIMITS.component_name),
      status: ComponentStatusSchema.safeParse(c.status).success && /^[a-z_]+$/.test(c.status) ? c.status : 'unknown',
    })),
    fetched_at: formatInstant(asOf),
  };
  // A Codex incident names Codex or affects one of the page's Codex components (by id or name).
  const codexIds = new Set(codex.map((c) => c.id));
  const signals = incidents
    .filter(
      (i) =>
        mentionsCodex(i.name) ||
        (i.components ?? []).some((c) => (typeof c.id === 'string' && codexIds.has(c.id)) || mentionsCodex(c.name)),
    )
    .flatMap((i) => {
      // Statuspage writes every time with a zone: one without (`9999-12-31` included) is refused like a future one,
      // never read in the machine's zone. An unreadable time leaves the incident undated.
      const at = judgedInstant(i.started_at ?? i.created_at, asOf);
      if (!at.ok && at.reason !== 'bad_date') {
        count(rejected, at.reason);
        return [];
      }
      const url = i.shortlink ? cleanUrl(i.shortlink) : null;
      if (i.shortlink && url === null) count(rejected, 'bad_url');
      const update = i.incident_updates?.find((u) => u.body);
      const fallback = [i.status, i.impact ? `impact: ${i.impact}` : ''].filter(Boolean).join(', ');
      return [incidentSignalOf(config, asOf, i, update?.body ?? fallback, url, at.ok ? at.iso : null)];
    });
  const items = status.components.length + signals.length;
  return { ok: true, items, detail: readDetail('ok', {}, rejected), data: { status, signals } } as const;
}

/**
 * A summary body → our status and signals, under the parse budget (size, nesting, lists, time). `items` counts what
 * we kept: Codex components plus Codex incidents. The indicator and description are never translated.
 */
export function parseStatusPage(
  config: SourceConfig,
  body: string,
  asOf: Date,
  budget: ParseBudget = JSON_BUDGET,
): SourceRead {
  return parseJsonWithin(body, StatusSummarySchema, (summary) => computeStatusPage(config, summary, asOf), budget);
}

export const fetchStatusPage = (fetcher: Fetcher, config: SourceConfig, asOf: Date): Promise<SourceResult> =>
  readSource(fetcher, config, asOf, { accept: 'application/json' }, (body) => parseStatusPage(config, body, asOf));
