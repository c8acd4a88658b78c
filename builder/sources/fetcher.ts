// What every source reader shares: the HTTP interface (failures are values, never exceptions), a source's
// configuration, and reading a source into its check.
import { formatInstant } from '../contract.ts';
import type { SourceResult } from '../model/inputs.ts';
import type { Detail, SourceCheck, SourceKind } from '../model/schemas.ts';
import { redactUrl } from '../redact.ts';

export type FetchResult =
  | { ok: true; status: number; body: string; latencyMs: number }
  | {
      ok: false;
      status: number | null;
      latencyMs: number;
      detail: Detail;
      /** The wait a 429 or 503 asked for with `Retry-After`, in whole seconds (absent when it named none). */
      retryAfterS?: number;
    };

/**
 * Per request: the Accept header, and the retries after the first attempt when not the fetcher's own number (0 for a
 * source whose terms allow no second request within a minute).
 */
export type GetOptions = { accept?: string; retries?: number };

export type Fetcher = { get(url: string, opts?: GetOptions): Promise<FetchResult> };

export interface SourceConfig {
  /** Stable id used in checks and state, e.g. `status-page`, `reset-tracker`, `feed-1`. */
  id: string;
  kind: SourceKind;
  /** May carry credentials (it may come from a secret): only ever shown through redactUrl. */
  url: string;
  /** Status page and its incident feed: the Codex component ids (default: status-page.ts's documented list). */
  codexComponents?: readonly string[];
}

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
  request: GetOptions,
  read: (body: string) => SourceRead,
): Promise<SourceResult> {
  const r = await fetcher.get(config.url, request);
  const got: SourceRead = r.ok ? read(r.body) : { ok: false, detail: r.detail };
  const items_read = got.ok ? got.items : 0;
  const fields = { http_status: r.status, latency_ms: r.latencyMs, ok: got.ok, items_read, detail: got.detail };
  return { check: computeCheck(config, asOf, fields), ...(got.ok ? got.data : {}) };
}
