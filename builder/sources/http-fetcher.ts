// The real Fetcher: undici (builder/net/http.ts) with per-request timeouts, a run deadline, a body cap, the shared
// retry policy and redirects under the rules below.
// Every expected failure comes back as a FetchResult value whose detail code is a key of locales/<lang>/checks.json.
import pLimit from 'p-limit';
import { request, type Agent } from 'undici';
import type { Detail } from '../model/schemas.ts';
import {
  createAgent,
  errorCode,
  isBodyTooLarge,
  isTimeout,
  retryableStatus,
  retryAfterOf,
  withRetries,
  type Attempt,
} from '../net/http.ts';
import type { FetchResult, Fetcher } from './fetcher.ts';
import { redactUrl, redactUrlsIn } from '../redact.ts';
import { LOCAL_USER_AGENT } from '../net/user-agent.ts';

export const REQUEST_TIMEOUT_MS = 10_000;
export const MAX_BODY_BYTES = 2 * 1024 * 1024;
export const MAX_RETRIES = 2;
/** The whole run's network budget: a scheduled run every 15 minutes must never pile up behind a slow source. */
export const RUN_DEADLINE_MS = 60_000;
/** Redirects followed per request; each must keep the scheme and stay on an allowed host (see redirectAllowed). */
export const MAX_REDIRECTS = 3;
export const MAX_CONCURRENT_REQUESTS = 4;
export const BACKOFF_BASE_MS = 500;
export const USER_AGENT = LOCAL_USER_AGENT;
/** At most this much of a redirect's or a failed status's body is read (to reuse the connection), the rest dropped. */
const DRAIN_BYTES = 128 * 1024;

export interface HttpFetcherOptions {
  /** Absolute end of the run's network budget (Date or epoch ms); every attempt and wait must finish by then. */
  deadline?: Date | number;
  timeoutMs?: number;
  maxBodyBytes?: number;
  /** Retries after the first attempt, for 5xx, 429, timeouts and network errors. */
  retries?: number;
  backoffBaseMs?: number;
  maxRedirects?: number;
  concurrency?: number;
  userAgent?: string;
}

/** A failed attempt: what the FetchResult reports, and what the retry policy needs. */
export interface Failure {
  status: number | null;
  detail: Detail;
  /** For the log line: `[sources/http] GET <url> -> <why>`. */
  why: string;
  retryable: boolean;
  retryAfterMs: number | null;
}

const failure = (
  status: number | null,
  code: string,
  params: Detail['params'],
  why: string,
  retryable = false,
): Failure => ({ status, detail: { code, params }, why, retryable, retryAfterMs: null });

/** A final (non-redirect) status: null for 2xx, else the failure; 5xx and 429 are worth a retry. */
export function classifyStatus(
  status: number,
  retryAfter: string | string[] | undefined,
  nowMs: number,
): Failure | null {
  if (status >= 200 && status <= 299) return null;
  const retryAfterMs = retryAfterOf(status, retryAfter, nowMs);
  // Reddit answers 403 "Blocked" to whole datacenter ranges (GitHub's runners among them): a refusal of this network,
  // which no retry changes (retryableStatus never retries a 4xx but 429).
  const detail: Detail =
    status === 429
      ? { code: 'rate_limited', params: {} }
      : status === 403
        ? { code: 'blocked', params: {} }
        : { code: 'http_status', params: { status } };
  return { status, detail, why: String(status), retryable: retryableStatus(status), retryAfterMs };
}

/** A request that got no answer: refused and network errors are retried, a missing host only when DNS was unsure. */
export function classifyNetworkError(code: string | null, host: string, message: string): Failure {
  if (code === 'ECONNREFUSED') return failure(null, 'connection_refused', {}, 'connection refused', true);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return failure(null, 'dns_error', { host }, `DNS lookup failed (${code})`, code === 'EAI_AGAIN');
  return failure(null, 'network_error', { code: code ?? 'unknown' }, `network error: ${message}`, true);
}

/**
 * The redirect policy: the same scheme as the configured URL, and its host (host and port: another port is
 * another server) or one the source's configuration allows. Anything else would let a source send us anywhere.
 */
export function redirectAllowed(start: URL, next: URL, allowedHosts: readonly string[]): boolean {
  if (next.protocol !== start.protocol) return false;
  return next.host === start.host || allowedHosts.includes(next.host);
}

/**
 * Credentials in a source URL's userinfo travel as HTTP Basic auth, and only to the configured host: a redirect to
 * another (allowed) host does not get them. The request URL itself never carries them.
 */
function splitCredentials(url: URL, start: URL): { target: string; authorization: string | null } {
  const u = new URL(url);
  u.username = '';
  u.password = '';
  const creds =
    url.username !== '' || url.password !== ''
      ? url
      : start.host === u.host && (start.username !== '' || start.password !== '')
        ? start
        : null;
  if (creds === null) return { target: u.href, authorization: null };
  const token = Buffer.from(`${decodeURIComponent(creds.username)}:${decodeURIComponent(creds.password)}`).toString(
    'base64',
  );
  return { target: u.href, authorization: `Basic ${token}` };
}

/** Where a redirect leads: the next URL, or the failure that ends the request. */
function nextHop(
  status: number,
  location: string | string[] | undefined,
  url: URL,
  start: URL,
  visited: ReadonlySet<string>,
  hop: number,
  o: { allowedHosts: readonly string[]; maxRedirects: number },
): URL | Failure {
  const loc = Array.isArray(location) ? location[0] : location;
  if (!loc) return failure(status, 'http_status', { status }, `${status} without Location`);
  let next: URL;
  try {
    next = new URL(loc, url);
  } catch {
    return failure(status, 'bad_redirect', {}, `${status} to an invalid Location`);
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:')
    return failure(status, 'bad_redirect', {}, `${status} to a non-http(s) Location`);
  const shown = redactUrl(next.href);
  if (!redirectAllowed(start, next, o.allowedHosts))
    return failure(
      status,
      'redirect_not_allowed',
      { location: shown },
      `${status} to ${shown}: another host or scheme`,
    );
  if (visited.has(next.href)) return failure(status, 'redirect_loop', {}, `redirect loop back to ${shown}`);
  if (hop >= o.maxRedirects)
    return failure(status, 'too_many_redirects', { max: o.maxRedirects }, `more than ${o.maxRedirects} redirects`);
  return next;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** What one fetcher's attempts share. */
interface AttemptContext {
  agent: Agent;
  deadlineMs: number;
  timeoutMs: number;
  maxBodyBytes: number;
  maxRedirects: number;
  userAgent: string;
}

/** One request (plus redirects), each hop under its own timeout, never past the deadline. */
async function attemptOnce(
  ctx: AttemptContext,
  start: URL,
  accept: string,
  allowedHosts: readonly string[],
): Promise<Attempt<{ status: number; body: string; url: URL }, Failure>> {
  const { agent, deadlineMs, timeoutMs, maxBodyBytes, maxRedirects, userAgent } = ctx;
  const visited = new Set<string>();
  let url = start;
  for (let hop = 0; ; hop++) {
    visited.add(url.href);
    const remaining = deadlineMs - Date.now();
    if (remaining <= 0)
      return { ok: false, failure: failure(null, 'deadline_exceeded', {}, 'run deadline exceeded before the request') };
    const hitsDeadline = remaining < timeoutMs;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), Math.min(timeoutMs, remaining));
    // Set once headers arrive, so a body that trickles past the timeout still reports the status it had.
    let status: number | null = null;
    const timedOut = (): Failure =>
      hitsDeadline && controller.signal.aborted
        ? failure(status, 'deadline_exceeded', {}, 'run deadline exceeded')
        : failure(
            status,
            'timeout',
            { seconds: Math.round(timeoutMs / 100) / 10 },
            `timed out after ${timeoutMs} ms`,
            true,
          );
    try {
      const { target, authorization } = splitCredentials(url, start);
      const res = await request(target, {
        method: 'GET',
        dispatcher: agent,
        signal: controller.signal,
        headers: { 'user-agent': userAgent, accept, ...(authorization ? { authorization } : {}) },
      });
      status = res.statusCode;
      if (REDIRECT_STATUSES.has(status)) {
        await res.body.dump({ limit: DRAIN_BYTES }).catch(() => undefined);
        const next = nextHop(status, res.headers.location, url, start, visited, hop, { allowedHosts, maxRedirects });
        if (!(next instanceof URL)) return { ok: false, failure: next };
        url = next;
        continue;
      }
      const failed = classifyStatus(status, res.headers['retry-after'], Date.now());
      if (failed !== null) {
        await res.body.dump({ limit: DRAIN_BYTES }).catch(() => undefined);
        return { ok: false, failure: failed };
      }
      const body = (await res.body.text()).replace(/^\uFEFF/, '');
      return { ok: true, value: { status, body, url } };
    } catch (err) {
      if (controller.signal.aborted || isTimeout(err)) return { ok: false, failure: timedOut() };
      if (isBodyTooLarge(err))
        return {
          ok: false,
          failure: failure(
            status,
            'body_too_large',
            { limit_kib: Math.floor(maxBodyBytes / 1024) },
            `body over the ${maxBodyBytes} byte cap`,
          ),
        };
      const message = redactUrlsIn((err as Error)?.message ?? String(err));
      return { ok: false, failure: classifyNetworkError(errorCode(err), url.hostname, message) };
    } finally {
      clearTimeout(timer);
    }
  }
}

export function createHttpFetcher(opts: HttpFetcherOptions = {}): Fetcher {
  const deadlineMs = opts.deadline === undefined ? Date.now() + RUN_DEADLINE_MS : +opts.deadline;
  const timeoutMs = opts.timeoutMs ?? REQUEST_TIMEOUT_MS;
  const maxBodyBytes = opts.maxBodyBytes ?? MAX_BODY_BYTES;
  const policy = {
    retries: opts.retries ?? MAX_RETRIES,
    backoffBaseMs: opts.backoffBaseMs ?? BACKOFF_BASE_MS,
    deadlineMs,
  };
  const limit = pLimit(opts.concurrency ?? MAX_CONCURRENT_REQUESTS);
  const ctx: AttemptContext = {
    agent: createAgent({ timeoutMs, maxBodyBytes }),
    deadlineMs,
    timeoutMs,
    maxBodyBytes,
    maxRedirects: opts.maxRedirects ?? MAX_REDIRECTS,
    userAgent: opts.userAgent ?? USER_AGENT,
  };

  return {
    async get(url, getOpts): Promise<FetchResult> {
      const started = Date.now();
      const shown = redactUrl(url);
      let start: URL | null = null;
      try {
        start = new URL(url);
      } catch {
        // handled below
      }
      if (start === null || (start.protocol !== 'http:' && start.protocol !== 'https:')) {
        return {
          ok: false,
          status: null,
          latencyMs: 0,
          url: shown,
          detail: { code: 'invalid_url', params: {} },
          error: `[sources/http] GET ${shown} -> not an http(s) URL`,
        };
      }
      const from = start;
      const a = await withRetries(
        () => limit(() => attemptOnce(ctx, from, getOpts?.accept ?? '*/*', getOpts?.redirectHosts ?? [])),
        policy,
      );
      const latencyMs = Date.now() - started;
      if (a.ok)
        return { ok: true, status: a.value.status, body: a.value.body, latencyMs, url: redactUrl(a.value.url.href) };
      const f = a.failure;
      let { detail, why } = f;
      if (f.retryAfterPastDeadline && f.retryAfterMs !== null) {
        const seconds = Math.ceil(f.retryAfterMs / 1000);
        why = `${why} (Retry-After ${seconds} s exceeds the run deadline)`;
        if (f.status === 429) detail = { code: 'rate_limited_retry_after', params: { seconds } };
      }
      return {
        ok: false,
        status: f.status,
        latencyMs,
        url: shown,
        detail,
        error: `[sources/http] GET ${shown} -> ${why}`,
      };
    },
  };
}
