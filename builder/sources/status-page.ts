// Source 1: the official upstream status page (Atlassian Statuspage v2 summary, or incident.io's variant of it).
import { z } from 'zod';
import { ComponentStatusSchema, type Signal, type UpstreamStatus } from '../model/schemas.ts';
import { cleanText, computeCheck, failedFetchResult, isHttpUrl, parseJsonBody, sanitizeIdPart, schemaMismatch, toIsoInstant } from './common.ts';
import type { SourceResult } from '../model/inputs.ts';
import type { Fetcher, SourceConfig } from './fetcher.ts';

const nullableText = z.string().nullable().optional();

// Component status is a plain string: upstream adds values (e.g. `under_maintenance`) and an unknown one must not
// turn the whole source into a failure.
const ComponentSchema = z.object({ id: z.string(), name: z.string(), status: z.string() });

const IncidentSchema = z.object({
  id: z.string(),
  name: z.string(),
  status: z.string(),
  impact: nullableText,
  shortlink: nullableText,
  created_at: nullableText,
  started_at: nullableText,
  incident_updates: z.array(z.object({ body: nullableText, status: nullableText })).optional(),
  components: z.array(z.object({ name: z.string() })).optional(),
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

const CODEX_COMPONENT = /^\s*codex\b/i;
const MENTIONS_CODEX = /\bcodex\b/i;

export function isCodexIncident(i: Incident): boolean {
  return MENTIONS_CODEX.test(i.name) || (i.components ?? []).some((c) => MENTIONS_CODEX.test(c.name));
}

function incidentSignal(config: SourceConfig, i: Incident, asOf: Date): Signal {
  const update = i.incident_updates?.find((u) => u.body);
  const fallback = [i.status, i.impact ? `impact: ${i.impact}` : ''].filter(Boolean).join(', ');
  return {
    id: `status-incident-${sanitizeIdPart(i.id, 100) || 'unknown'}`,
    kind: 'status_incident',
    source: config.id,
    title: cleanText(i.name, 300),
    excerpt: cleanText(update?.body ?? fallback, 1000),
    url: i.shortlink && isHttpUrl(i.shortlink) ? i.shortlink : null,
    published_at: toIsoInstant(i.started_at ?? i.created_at),
    first_seen_at: asOf.toISOString(),
    review: 'awaiting_review',
    promoted_to: null,
  };
}

/** Pure: a parsed summary → our UpstreamStatus (Codex components only) and Codex incident signals. */
export function computeStatusPage(config: SourceConfig, summary: StatusSummary, asOf: Date): { status: UpstreamStatus; signals: Signal[] } {
  const status: UpstreamStatus = {
    page_url: summary.page.url,
    indicator: summary.status.indicator,
    description: summary.status.description,
    updated_at: toIsoInstant(summary.page.updated_at),
    components: summary.components
      .filter((c) => CODEX_COMPONENT.test(c.name))
      .map((c) => ({ id: c.id, name: c.name, status: ComponentStatusSchema.safeParse(c.status).success ? c.status : 'unknown' })),
    fetched_at: asOf.toISOString(),
  };
  const signals = (summary.incidents ?? []).filter(isCodexIncident).map((i) => incidentSignal(config, i, asOf));
  return { status, signals };
}

/**
 * Fetches and validates the summary. `items_read` counts what we kept: Codex components plus Codex incidents.
 * The page's indicator and description are the upstream's own words and are never translated.
 */
export async function fetchStatusPage(fetcher: Fetcher, config: SourceConfig, asOf: Date): Promise<SourceResult> {
  const r = await fetcher.get(config.url, { accept: 'application/json' });
  if (!r.ok) return failedFetchResult(config, asOf, r);
  const base = { http_status: r.status, latency_ms: r.latencyMs };
  const json = parseJsonBody(r.body);
  if (!json.ok) return { check: computeCheck(config, asOf, { ...base, ok: false, items_read: 0, detail: { code: 'invalid_json', params: {} } }) };
  const parsed = StatusSummarySchema.safeParse(json.value);
  if (!parsed.success) return { check: computeCheck(config, asOf, { ...base, ok: false, items_read: 0, detail: schemaMismatch(parsed.error) }) };
  const { status, signals } = computeStatusPage(config, parsed.data, asOf);
  return {
    check: computeCheck(config, asOf, { ...base, ok: true, items_read: status.components.length + signals.length, detail: { code: 'ok', params: {} } }),
    status,
    signals,
  };
}
