// Helpers shared by the source adapters: reading a source into its check, and ids.
import { createHash } from 'node:crypto';
import { formatInstant } from '../contract.ts';
import type { Detail, SourceCheck } from '../model/schemas.ts';
import type { SourceResult } from '../model/inputs.ts';
import type { Fetcher, SourceConfig } from './fetcher.ts';
import { redactUrl } from '../redact.ts';

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

/** What a source's reader made of a body: why it failed, or what the check counts and the result carries. */
export type SourceRead =
  { ok: false; detail: Detail } | { ok: true; items: number; detail: Detail; data: Omit<SourceResult, 'check'> };

/**
 * Fetches a source's URL and reads the body. A failed fetch is a failed check with the fetcher's detail, a failed
 * read one with the reader's; no data comes with either.
 */
export async function readSource(
  fetcher: Fetcher,
  config: SourceConfig,
  asOf: Date,
  accept: string,
  read: (body: string) => SourceRead,
): Promise<SourceResult> {
  const r = await fetcher.get(config.url, { accept });
  const base = { http_status: r.status, latency_ms: r.latencyMs };
  const got: SourceRead = r.ok ? read(r.body) : { ok: false, detail: r.detail };
  if (!got.ok) return { check: computeCheck(config, asOf, { ...base, ok: false, items_read: 0, detail: got.detail }) };
  return {
    check: computeCheck(config, asOf, { ...base, ok: true, items_read: got.items, detail: got.detail }),
    ...got.data,
  };
}

/** Upstream ids → the `[a-z0-9._-]` alphabet our ids use. Lossy (case, other characters, length): see stableIdPart. */
function sanitizeIdPart(raw: string, max: number): string {
  return raw
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[-._]+|-+$/g, '')
    .slice(0, max);
}

/** Hex digits of the exact upstream id appended when sanitising changed it: 32 bits keep ids apart that differ only by case. */
const ID_HASH_HEX_CHARS = 8;

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
