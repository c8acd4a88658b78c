// Source 1: the official upstream status page (Atlassian Statuspage v2 summary, or incident.io's variant of it). The
// incident.io variant lists no incidents: they come from its own feed, status-incidents.ts.
import { formatInstant } from '../contract.ts';
import { z } from 'zod';
import { ComponentStatusSchema, type Detail, type Signal, type UpstreamStatus } from '../model/schemas.ts';
import { STATUS_PAGE_BUDGET, type ParseBudget } from './budget.ts';
import { computeCheck, failedFetchResult, fetchOptions, parseJsonWithin, readDetail, stableIdPart } from './common.ts';
import { readInstant } from './instant.ts';
import type { SourceResult } from '../model/inputs.ts';
import type { Fetcher, SourceConfig } from './fetcher.ts';
import { cleanText, cleanUrl, countReject, judgeInstant, TEXT_LIMITS, type RejectCounts } from './sanitize.ts';

/** More components than any real page has; the rest are counted (over_item_cap), not read. */
export const MAX_COMPONENTS = 500;
/** Open incidents listed at once; more is a flood, counted and not read. */
export const MAX_INCIDENTS = 100;

const nullableText = z.string().nullable().optional();

// Component status is a plain string: upstream adds values (e.g. `under_maintenance`) and an unknown one must not
// turn the whole source into a failure.
const ComponentSchema = z.object({ id: z.string(), name: z.string(), status: z.string() });

/**
 * The Codex group of status.openai.com, by component id (the ids of the September 2026 captures, docs/sources.md).
 * Membership, not the name: `CLI` and `VS Code extension` are Codex components whose names do not say so.
 * RESET_STATUS_CODEX_COMPONENTS replaces the list.
 */
export const DEFAULT_CODEX_COMPONENT_IDS: readonly string[] = [
  '01JVCV8YSWZFRSM1G5CVP253SK', // Codex Web
  '01KMP3KP5MGE23B80K1EK4S8PV', // Codex API
  '01KMKFAMWKNQ84Z1766MV08ZDE', // CLI
  '01KMP3KP5M8X0EBTVW6KN327EE', // VS Code extension
  '01KMKFAMWKQ81YWSE1Z18R6VHR', // Codex in ChatGPT Desktop
];

/** The Codex component ids a status source uses: its configured list, else the default. */
export function codexComponentIds(config: SourceConfig): ReadonlySet<string> {
  return new Set(config.codexComponents ?? DEFAULT_CODEX_COMPONENT_IDS);
}

const MENTIONS_CODEX = /\bcodex\b/i;

/** An upstream name that names Codex (`Codex Web`, `Issues with Codex`); the fallback when no listed id is on the page. */
export function mentionsCodex(name: string): boolean {
  return MENTIONS_CODEX.test(name);
}

/**
 * The page's Codex components, in page order: those whose id is listed; when none of the listed ids is on the page
 * (another page, or components re-created under new ids), those whose name mentions Codex.
 */
export function chooseCodexComponents<C extends { id: string; name: string }>(
  components: readonly C[],
  ids: ReadonlySet<string>,
): C[] {
  const listed = components.filter((c) => ids.has(c.id));
  return listed.length > 0 ? listed : components.filter((c) => mentionsCodex(c.name));
}

const IncidentSchema = z.object({
  id: z.string(),
  name: z.string(),
  status: z.string(),
  impact: nullableText,
  shortlink: nullableText,
  created_at: nullableText,
  started_at: nullableText,
  incident_updates: z.array(z.object({ body: nullableText, status: nullableText })).optional(),
  components: z.array(z.object({ id: z.string().nullish(), name: z.string() })).optional(),
});

/** Atlassian Statuspage v2 `summary.json`; incident.io serves the same path without the two incident lists. */
export const StatusSummarySchema = z.object({
  page: z.object({ id: z.string(), name: z.string(), url: z.string(), updated_at: nullableText }),
  status: z.object({ indicator: z.string(), description: z.string() }),
  components: z.array(ComponentSchema),
  incidents: z.array(IncidentSchema).optional(),
  scheduled_maintenances: z.array(z.unknown()).optional(),
});
export type StatusSummary = z.infer<typeof StatusSummarySchema>;
type Incident = z.infer<typeof IncidentSchema>;

/** A summary incident that names Codex or affects one of the page's Codex components (by id or name). */
export function isCodexIncident(i: Incident, codexIds: ReadonlySet<string>): boolean {
  return (
    mentionsCodex(i.name) ||
    (i.components ?? []).some((c) => (typeof c.id === 'string' && codexIds.has(c.id)) || mentionsCodex(c.name))
  );
}

function incidentSignal(config: SourceConfig, i: Incident, asOf: Date, rejected: RejectCounts): Signal | null {
  // Statuspage writes every time with a zone: one without (`9999-12-31` included) is refused like a future one,
  // never read in the machine's zone. An unreadable time leaves the incident undated, as before.
  const read = readInstant(i.started_at ?? i.created_at, 'reject');
  const published = read.ok ? read.iso : null;
  const verdict =
    !read.ok && read.reason === 'no_timezone'
      ? 'no_timezone'
      : published === null
        ? 'ok'
        : judgeInstant(published, asOf);
  if (verdict !== 'ok') {
    countReject(rejected, verdict);
    return null;
  }
  const url = i.shortlink ? cleanUrl(i.shortlink) : null;
  if (i.shortlink && url === null) countReject(rejected, 'bad_url');
  const update = i.incident_updates?.find((u) => u.body);
  const fallback = [i.status, i.impact ? `impact: ${i.impact}` : ''].filter(Boolean).join(', ');
  return {
    id: `status-incident-${stableIdPart(i.id, 100)}`,
    kind: 'status_incident',
    source: config.id,
    title: cleanText(i.name, TEXT_LIMITS.title),
    excerpt: cleanText(update?.body ?? fallback, TEXT_LIMITS.excerpt),
    url,
    published_at: published,
    first_seen_at: formatInstant(asOf),
    review: 'awaiting_review',
    promoted_to: null,
  };
}

/**
 * The page's own timestamp passes the date rules every record does (a page dated 9999-12-31 is as hostile as a record
 * dated so): without a zone, far ahead of `asOf` or before the tracked era it is published as null, and counted.
 */
function pageUpdatedAt(raw: string | null | undefined, asOf: Date, rejected: RejectCounts): string | null {
  if (raw === null || raw === undefined || raw.trim() === '') return null;
  const read = readInstant(raw, 'reject');
  if (!read.ok) {
    countReject(rejected, read.reason);
    return null;
  }
  const verdict = judgeInstant(read.iso, asOf);
  if (verdict === 'ok') return read.iso;
  countReject(rejected, verdict);
  return null;
}

/**
 * Pure: a parsed summary → our UpstreamStatus (Codex components only, chosen by id with the name as the fallback,
 * upstream words cleaned and capped) and Codex incident signals (Statuspage lists them; incident.io does not); what
 * failed the sanity rules is counted in `rejected`. `updated_at` is the page's own time, not when we read it.
 */
export function computeStatusPage(
  config: SourceConfig,
  summary: StatusSummary,
  asOf: Date,
): { status: UpstreamStatus; signals: Signal[]; rejected: RejectCounts } {
  const rejected: RejectCounts = {};
  const pageUrl = cleanUrl(summary.page.url);
  if (pageUrl === null) countReject(rejected, 'bad_url');
  if (summary.components.length > MAX_COMPONENTS)
    countReject(rejected, 'over_item_cap', summary.components.length - MAX_COMPONENTS);
  const incidents = summary.incidents ?? [];
  if (incidents.length > MAX_INCIDENTS) countReject(rejected, 'over_item_cap', incidents.length - MAX_INCIDENTS);
  const codex = chooseCodexComponents(summary.components.slice(0, MAX_COMPONENTS), codexComponentIds(config));
  const status: UpstreamStatus = {
    page_url: pageUrl ?? '',
    indicator: cleanText(summary.status.indicator, TEXT_LIMITS.status_description),
    description: cleanText(summary.status.description, TEXT_LIMITS.status_description),
    updated_at: pageUpdatedAt(summary.page.updated_at, asOf, rejected),
    // A status is the page's own word (incident.io's `full_outage` included), kept as written when it is a plain word.
    components: codex.map((c) => ({
      id: cleanText(c.id, TEXT_LIMITS.id),
      name: cleanText(c.name, TEXT_LIMITS.component_name),
      status: ComponentStatusSchema.safeParse(c.status).success && /^[a-z_]+$/.test(c.status) ? c.status : 'unknown',
    })),
    fetched_at: formatInstant(asOf),
  };
  const codexIds = new Set(codex.map((c) => c.id));
  const signals = incidents
    .slice(0, MAX_INCIDENTS)
    .filter((i) => isCodexIncident(i, codexIds))
    .map((i) => incidentSignal(config, i, asOf, rejected))
    .filter((s) => s !== null);
  return { status, signals, rejected };
}

/**
 * Fetches and validates the summary. `items_read` counts what we kept: Codex components plus Codex incidents.
 * The page's indicator and description are the upstream's own words and are never translated.
 */
export type ParsedStatusPage =
  { ok: true; status: UpstreamStatus; signals: Signal[]; rejected: RejectCounts } | { ok: false; detail: Detail };

/** A summary body → our status and signals, under the status page's parse budget (size, nesting, lists, time). */
export function parseStatusPage(
  config: SourceConfig,
  body: string,
  asOf: Date,
  opts: { budget?: ParseBudget; now?: () => number } = {},
): ParsedStatusPage {
  const parsed = parseJsonWithin(body, StatusSummarySchema, opts.budget ?? STATUS_PAGE_BUDGET, opts.now);
  if (!parsed.ok) return parsed;
  const computed = computeStatusPage(config, parsed.value, asOf);
  const over = parsed.clock.over();
  return over ? { ok: false, detail: over } : { ok: true, ...computed };
}

export async function fetchStatusPage(fetcher: Fetcher, config: SourceConfig, asOf: Date): Promise<SourceResult> {
  const r = await fetcher.get(config.url, fetchOptions(config, 'application/json'));
  if (!r.ok) return failedFetchResult(config, asOf, r);
  const base = { http_status: r.status, latency_ms: r.latencyMs };
  const parsed = parseStatusPage(config, r.body, asOf);
  if (!parsed.ok)
    return { check: computeCheck(config, asOf, { ...base, ok: false, items_read: 0, detail: parsed.detail }) };
  const { status, signals, rejected } = parsed;
  return {
    check: computeCheck(config, asOf, {
      ...base,
      ok: true,
      items_read: status.components.length + signals.length,
      detail: readDetail('ok', {}, rejected),
    }),
    status,
    signals,
  };
}
