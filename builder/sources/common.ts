// Helpers shared by the source adapters: building checks, reading zod paths, cleaning untrusted text.
import type { z } from 'zod';
import type { Detail, SourceCheck } from '../model/schemas.ts';
import type { SourceResult } from '../model/inputs.ts';
import type { FetchResult, SourceConfig } from './fetcher.ts';

export function computeCheck(
  config: SourceConfig,
  asOf: Date,
  fields: { ok: boolean; http_status: number | null; latency_ms: number | null; items_read: number; detail: Detail },
): SourceCheck {
  return { source: config.id, kind: config.kind, url: config.url, checked_at: asOf.toISOString(), ...fields };
}

/** A source whose fetch failed: the fetcher's detail is the check's detail, and no data comes with it. */
export function failedFetchResult(config: SourceConfig, asOf: Date, r: Extract<FetchResult, { ok: false }>): SourceResult {
  return { check: computeCheck(config, asOf, { ok: false, http_status: r.status, latency_ms: r.latencyMs, items_read: 0, detail: r.detail }) };
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

export function parseJsonBody(body: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(body) as unknown };
  } catch {
    return { ok: false };
  }
}

/** Any date string JavaScript understands (ISO 8601 with offset, RFC 822) → `YYYY-MM-DDTHH:MM:SSZ`, or null. */
export function toIsoInstant(value: string | null | undefined): string | null {
  if (!value) return null;
  const ms = Date.parse(value.trim());
  if (Number.isNaN(ms)) return null;
  const d = new Date(ms);
  const year = d.getUTCFullYear();
  if (year < 1970 || year > 9999) return null;
  return d.toISOString().replace('.000Z', 'Z');
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', hellip: '…', mdash: '—', ndash: '–',
  lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', copy: '©', reg: '®', trade: '™', middot: '·', bull: '•',
};

/** Decodes numeric and a small set of named character references; unknown names stay as written. */
export function decodeEntities(s: string): string {
  return s.replace(/&(#[xX][0-9a-fA-F]{1,6}|#\d{1,7}|[a-zA-Z]{2,8});/g, (whole, ref: string) => {
    if (ref[0] === '#') {
      const cp = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      if (!Number.isFinite(cp) || cp <= 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return '';
      return String.fromCodePoint(cp);
    }
    return NAMED_ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

// Enough input to fill any capped output field; bounding it first keeps the regexes below cheap on hostile input.
const MAX_RAW_CHARS = 20_000;
const CONTROL_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF]/g;
const LONE_SURROGATES = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function stripTags(s: string): string {
  return s
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<[^>]*>/g, ' ');
}

/**
 * Untrusted text (possibly HTML) → plain single-line text of at most `max` characters. Markup is stripped both
 * before and after decoding entities, so escaped markup (`&lt;b&gt;`) cannot come back as live tags.
 */
export function cleanText(raw: string, max: number): string {
  let s = raw.length > MAX_RAW_CHARS ? raw.slice(0, MAX_RAW_CHARS) : raw;
  s = stripTags(decodeEntities(stripTags(s)));
  s = s.replace(/[\t\n\r]/g, ' ').replace(CONTROL_CHARS, '').replace(LONE_SURROGATES, '').replace(/\s+/g, ' ').trim();
  if (s.length <= max) return s;
  let cut = s.slice(0, max - 1);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut.trimEnd()}…`;
}

/** Upstream ids → the `[a-z0-9._-]` alphabet our ids use. */
export function sanitizeIdPart(raw: string, max: number): string {
  return raw
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[-._]+|-+$/g, '')
    .slice(0, max);
}

export function isHttpUrl(u: string): boolean {
  try {
    const p = new URL(u).protocol;
    return p === 'http:' || p === 'https:';
  } catch {
    return false;
  }
}
