// Helpers shared by the source adapters: building checks, reading zod paths, cleaning untrusted text.
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { formatInstant } from '../contract.ts';
import type { Detail, EventType, SourceCheck } from '../model/schemas.ts';
import type { SourceResult } from '../model/inputs.ts';
import { checkJsonShape, checkSize, startBudgetClock, type BudgetClock, type ParseBudget } from './budget.ts';
import type { FetchResult, SourceConfig } from './fetcher.ts';
import { readInstant, type ZonelessRule } from './instant.ts';
import { redactUrl } from '../redact.ts';
import { noteParams, rejectionParams, type NoteCounts, type RejectCounts } from './sanitize.ts';

export function computeCheck(
  config: SourceConfig,
  asOf: Date,
  fields: { ok: boolean; http_status: number | null; latency_ms: number | null; items_read: number; detail: Detail },
): SourceCheck {
  // The configured URL may carry credentials: a check (state, /api/status) only ever holds its redacted form.
  return {
    source: config.id,
    kind: config.kind,
    url: redactUrl(config.url),
    checked_at: formatInstant(asOf),
    ...fields,
  };
}

/** The fetch options of a source: what it accepts, and the redirect hosts its configuration allows. */
export function fetchOptions(
  config: SourceConfig,
  accept: string,
): { accept: string; redirectHosts?: readonly string[] } {
  return config.redirectHosts ? { accept, redirectHosts: config.redirectHosts } : { accept };
}

/** A source whose fetch failed: the fetcher's detail is the check's detail, and no data comes with it. */
export function failedFetchResult(
  config: SourceConfig,
  asOf: Date,
  r: Extract<FetchResult, { ok: false }>,
): SourceResult {
  return {
    check: computeCheck(config, asOf, {
      ok: false,
      http_status: r.status,
      latency_ms: r.latencyMs,
      items_read: 0,
      detail: r.detail,
    }),
  };
}

/** `['components', 3, 'status']` → `components[3].status`, the form operators read in check details. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `${out === '' ? '' : '.'}${String(p)}`;
  return out === '' ? '(root)' : out;
}

export function schemaMismatch(error: z.ZodError, prefix: readonly PropertyKey[] = []): Detail {
  const issue = error.issues[0];
  return { code: 'schema_mismatch', params: { path: formatIssuePath([...prefix, ...(issue?.path ?? [])]) } };
}

/**
 * JSON text → a value of `schema`, under `budget`: size, then shape (nesting, list lengths) before `JSON.parse`, then
 * the time check. The running clock comes back so a caller can check it again after its own mapping.
 */
export function parseJsonWithin<S extends z.ZodType>(
  body: string,
  schema: S,
  budget: ParseBudget,
  now?: () => number,
): { ok: true; value: z.output<S>; clock: BudgetClock } | { ok: false; detail: Detail } {
  const clock = startBudgetClock(budget, now);
  const problem = checkSize(body, budget) ?? checkJsonShape(body, budget);
  if (problem) return { ok: false, detail: problem };
  const json = parseJsonBody(body);
  if (!json.ok) return { ok: false, detail: { code: 'invalid_json', params: {} } };
  const slow = clock.over();
  if (slow) return { ok: false, detail: slow };
  const parsed = schema.safeParse(json.value);
  return parsed.success ? { ok: true, value: parsed.data, clock } : { ok: false, detail: schemaMismatch(parsed.error) };
}

export function parseJsonBody(body: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(body) as unknown };
  } catch {
    return { ok: false };
  }
}

/**
 * A source's date string → `YYYY-MM-DDTHH:MM:SSZ`, or null when unreadable or, under `reject`, without a zone
 * (instant.ts; never the machine's time zone). Callers that must tell the two apart use readInstant.
 */
export function toIsoInstant(value: string | null | undefined, zoneless: ZonelessRule = 'reject'): string | null {
  const r = readInstant(value, zoneless);
  return r.ok ? r.iso : null;
}

/** Upstream ids → the `[a-z0-9._-]` alphabet our ids use. Lossy (case, other characters, length): see stableIdPart. */
export function sanitizeIdPart(raw: string, max: number): string {
  return raw
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[-._]+|-+$/g, '')
    .slice(0, max);
}

/** Hex digits of the exact upstream id appended when sanitising changed it: 32 bits keep ids apart that differ only by case. */
export const ID_HASH_HEX_CHARS = 8;

/**
 * An upstream id → our id part, a function of that id alone (never of arrival order or of the other records). An id
 * already in our alphabet (lower case `a-z0-9._-`, starting with a letter or digit, at most `max` characters) is kept as
 * it is; any other (`A` next to `a`, `RST 2026/11/18`, an overlong one) is sanitised, cut to leave room, and suffixed
 * with `-` and a short SHA-256 of the exact original, so `A` and `a` stay two records, with the same ids on every run.
 */
export function stableIdPart(raw: string, max: number): string {
  const clean = sanitizeIdPart(raw, max);
  if (clean === raw && raw !== '') return raw;
  const hash = createHash('sha256').update(raw).digest('hex').slice(0, ID_HASH_HEX_CHARS);
  const head = sanitizeIdPart(raw, max - ID_HASH_HEX_CHARS - 1).replace(/[-._]+$/, '');
  return head === '' ? hash : `${head}-${hash}`;
}

/**
 * The detail of a check that read its source: `code` as given, with the rejection counts added; a plain `ok` that
 * rejected anything becomes `ok_with_rejections`, so the rejections are named in every language.
 */
export function readDetail(
  code: string,
  params: Record<string, string | number>,
  rejected: RejectCounts,
  noted: NoteCounts = {},
): Detail {
  const r = rejectionParams(rejected);
  const n = noteParams(noted);
  if (code === 'ok' && Object.keys(r).length > 0) return { code: 'ok_with_rejections', params: { ...r, ...n } };
  if (code === 'ok' && Object.keys(n).length > 0) return { code: 'ok_with_notes', params: n };
  return { code, params: { ...params, ...r, ...n } };
}

/** The upstream tracker's reset types (its records and its scheduled reset) → ours; others are not ours to track. */
const TRACKER_TYPES: Readonly<Record<string, EventType>> = { regular: 'global_reset', banked: 'banked_grant' };

/** Our type of a tracker reset type, null for one we do not know (an own key only: `constructor` is no type). */
export function trackerEventType(resetType: string | null | undefined): EventType | null {
  return typeof resetType === 'string' && Object.hasOwn(TRACKER_TYPES, resetType) ? TRACKER_TYPES[resetType]! : null;
}
