// Pure: how the HTTP fetcher reads a response status and a network error, and how long it waits before a retry.
// The fetcher (http-fetcher.ts) does the I/O; every decision it takes about an answer is here and unit-tested.
import type { Detail } from '../model/schemas.ts';
import { readInstant } from './instant.ts';

export const BACKOFF_MAX_MS = 8_000;
/** A retry is only worth starting if it leaves at least this much time for the request itself. */
export const MIN_ATTEMPT_MS = 250;

export interface Failure {
  status: number | null;
  detail: Detail;
  /** For the log line: `[sources/http] GET <url> -> <why>`. */
  why: string;
  retryable: boolean;
  /** What the server asked for with Retry-After (429 and 503 only), in ms; null when it did not. */
  retryAfterMs: number | null;
}

/** `Retry-After` as milliseconds from `nowMs`: delta seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfterMs(value: string | null | undefined, nowMs: number): number | null {
  if (value === null || value === undefined) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // An HTTP date is always GMT (RFC 9110 §5.6.7); the obsolete forms without a zone name are read as GMT too, never in
  // the machine's zone.
  const r = readInstant(v, 'utc');
  const at = r.ok ? Date.parse(r.iso) : Date.parse(/\b(GMT|UTC)\b/i.test(v) ? v : `${v} GMT`);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}

/** A final (non-redirect) status: null for 2xx, else the failure; 5xx and 429 are worth a retry. */
export function classifyStatus(status: number, retryAfter: string | null, nowMs: number): Failure | null {
  if (status >= 200 && status <= 299) return null;
  const retryAfterMs = status === 429 || status === 503 ? parseRetryAfterMs(retryAfter, nowMs) : null;
  if (status === 429) return { status, detail: { code: 'rate_limited', params: {} }, why: '429', retryable: true, retryAfterMs };
  // Reddit answers 403 "Blocked" to whole datacenter ranges (GitHub's runners among them): a refusal of this network,
  // which no retry within the run changes.
  if (status === 403) return { status, detail: { code: 'blocked', params: {} }, why: '403 blocked', retryable: false, retryAfterMs };
  return { status, detail: { code: 'http_status', params: { status } }, why: String(status), retryable: status >= 500, retryAfterMs };
}

/** A request that got no answer: refused and network errors are retried, a missing host only when DNS was unsure. */
export function classifyNetworkError(code: string | null, host: string, message: string): Failure {
  if (code === 'ECONNREFUSED') return { status: null, detail: { code: 'connection_refused', params: {} }, why: 'connection refused', retryable: true, retryAfterMs: null };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return { status: null, detail: { code: 'dns_error', params: { host } }, why: `DNS lookup failed (${code})`, retryable: code === 'EAI_AGAIN', retryAfterMs: null };
  }
  return { status: null, detail: { code: 'network_error', params: { code: code ?? 'unknown' } }, why: `network error: ${message}`, retryable: true, retryAfterMs: null };
}

export type RetryDecision = { retry: true; waitMs: number } | { retry: false; failure: Failure };

/**
 * After a failed attempt (0-based `attempt`): wait and retry, or give up with the failure to report. Retry-After is
 * honoured or the fetcher gives up at once (retrying earlier would be rude, waiting past the deadline useless);
 * otherwise exponential backoff without jitter (one scheduled client per source: no herd to spread out).
 */
export function retryDecision(f: Failure, attempt: number, retries: number, remainingMs: number, backoffBaseMs: number): RetryDecision {
  if (!f.retryable || attempt >= retries) return { retry: false, failure: f };
  if (f.retryAfterMs !== null) {
    if (f.retryAfterMs + MIN_ATTEMPT_MS <= remainingMs) return { retry: true, waitMs: f.retryAfterMs };
    const seconds = Math.ceil(f.retryAfterMs / 1000);
    const why = `${f.why} (Retry-After ${seconds} s exceeds the run deadline)`;
    return { retry: false, failure: f.status === 429 ? { ...f, detail: { code: 'rate_limited_retry_after', params: { seconds } }, why } : { ...f, why } };
  }
  const waitMs = Math.min(backoffBaseMs * 2 ** attempt, BACKOFF_MAX_MS);
  return waitMs + MIN_ATTEMPT_MS > remainingMs ? { retry: false, failure: f } : { retry: true, waitMs };
}
