// HTTP for the sources' fetcher and the notifier: undici, with its own connect, headers and body timeouts and a cap on
// the response size, and the one retry policy both follow (bounded, Retry-After aware, never past a deadline).
import { Agent } from 'undici';

export const BACKOFF_MAX_MS = 8_000;
/** A retry is only worth starting if it leaves at least this much time for the request itself. */
export const MIN_ATTEMPT_MS = 250;

/**
 * A connection pool whose requests fail with undici's own errors past `timeoutMs` to connect, to receive the head,
 * or between two pieces of the body, and whose response bodies fail past `maxBodyBytes` (UND_ERR_RES_EXCEEDED_MAX_SIZE).
 */
export function createAgent({ timeoutMs, maxBodyBytes }: { timeoutMs: number; maxBodyBytes: number }): Agent {
  return new Agent({
    connect: { timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    maxResponseSize: maxBodyBytes,
  });
}

/** What undici and node report as an error code (a happy-eyeballs connect nests it in an AggregateError). */
export function errorCode(err: unknown): string | null {
  const e = err as { code?: unknown; errors?: { code?: unknown }[]; cause?: { code?: unknown } } | null;
  return [e?.code, e?.errors?.[0]?.code, e?.cause?.code].find((c): c is string => typeof c === 'string') ?? null;
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
export const isTimeout = (err: unknown): boolean =>
  TIMEOUT_CODES.has(errorCode(err) ?? '') || (err as { name?: string } | null)?.name === 'TimeoutError';

/** `Retry-After` as milliseconds from `nowMs`: delta seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfterMs(value: string | null | undefined, nowMs: number): number | null {
  const v = value?.trim();
  if (v === undefined) return null;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // An HTTP date is always GMT (RFC 9110 §5.6.7): the obsolete forms without a zone name are read as GMT too, never
  // in the machine's zone.
  const at = Date.parse(/\b(GMT|UTC)\b/i.test(v) ? v : `${v} GMT`);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

export const retryableStatus = (status: number): boolean => status >= 500 || status === 429;

/** The wait a 429 or 503 asks for with Retry-After, in ms; null for other statuses or without a readable header. */
export const retryAfterOf = (status: number, header: string | string[] | undefined, nowMs: number): number | null =>
  status === 429 || status === 503 ? parseRetryAfterMs(Array.isArray(header) ? header[0] : header, nowMs) : null;

/** A failure worth retrying or not, and the wait in ms the server asked for with Retry-After (null: none). */
export type Retryable = { retryable: boolean; retryAfterMs: number | null };

/**
 * After a failed attempt (0-based `attempt`): the wait before the next one, or null to give up. Retry-After is
 * honoured or the caller gives up at once (retrying earlier would be rude, waiting past the deadline useless);
 * otherwise exponential backoff without jitter (one scheduled client per receiver: no herd to spread out).
 */
export function retryDecision(
  f: Retryable,
  attempt: number,
  retries: number,
  remainingMs: number,
  backoffBaseMs: number,
): number | null {
  if (!f.retryable || attempt >= retries) return null;
  const waitMs = f.retryAfterMs ?? Math.min(backoffBaseMs * 2 ** attempt, BACKOFF_MAX_MS);
  return waitMs + MIN_ATTEMPT_MS <= remainingMs ? waitMs : null;
}

export type Attempt<T, F> = { ok: true; value: T } | { ok: false; failure: F };

/**
 * Runs `attempt` until it succeeds or the policy gives up (`retries` after the first attempt, every wait ending
 * before `deadlineMs`); the last failure says whether it was a Retry-After past the deadline that ended it.
 */
export async function withRetries<T, F extends Retryable>(
  attempt: () => Promise<Attempt<T, F>>,
  policy: { retries: number; backoffBaseMs: number; deadlineMs: number },
): Promise<Attempt<T, F & { retryAfterPastDeadline: boolean }>> {
  for (let n = 0; ; n++) {
    const a = await attempt();
    if (a.ok) return a;
    const f = a.failure;
    const waitMs = retryDecision(f, n, policy.retries, policy.deadlineMs - Date.now(), policy.backoffBaseMs);
    if (waitMs === null) {
      const retryAfterPastDeadline = f.retryable && n < policy.retries && f.retryAfterMs !== null;
      return { ok: false, failure: { ...f, retryAfterPastDeadline } };
    }
    await new Promise<void>((resolve) => setTimeout(resolve, waitMs));
  }
}
