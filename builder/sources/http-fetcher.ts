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

export const MAX_BODY_BYTES = 2 * 1024 * 1024;
/** The whole run's network budget: a scheduled run every 15 minutes must never pile up behind a slow source. */
export const RUN_DEADLINE_MS = 60_000;
export const USER_AGENT = LOCAL_USER_AGENT;
/** At most this much of a redirect's or a failed status's body is read (to reuse the connection), the rest dropped. */
const DRAIN_BYTES = 128 * 1024;

const DEFAULTS = {
  timeoutMs: 10_000,
  maxBodyBytes: MAX_BODY_BYTES,
  /** Retries after the first attempt, for 5xx, 429, timeouts and network errors. */
  retries: 2,
  backoffBaseMs: 500,
  /** Redirects followed per request; each must keep the scheme and the host (see redirectAllowed). */
  maxRedirects: 3,
  concurrency: 4,
  userAgent: USER_AGENT,
};

export type HttpFetcherOptions = Partial<typeof DEFAULTS> & {
  /** Absolute end of the run's network budget (Date or epoch ms); every attempt and wait must finish by then. */
  deadline?: Date | number;
};

/** What one fetcher's attempts share. */
type AttemptContext = typeof DEFAULTS & { agent: Agent; deadlineMs: number };

/** A failed attempt: what the FetchResult reports, and what the retry policy needs. */
interface Failure {
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
 * The redirect policy: the same scheme and host (host and port: another port is another server) as the configured
 * URL. Anything else would let a source send us anywhere, and its credentials with us.
 */
export function redirectAllowed(start: URL, next: URL): boolean {
  return next.protocol === start.protocol && next.host === start.host;
}

/**
 * The URL to request, without userinfo, and its Authorization: credentials in a source URL's userinfo travel as HTTP
 * Basic auth, and only to the configured host (the only host a redirect may lead to).
 */
function withoutCredentials(url: URL, start: URL): { target: string; authorization: string | null } {
  const target = new URL(url);
  target.username = '';
  target.password = '';
  const own = url.username !== '' || url.password !== '';
  const creds = own ? url : start.host === url.host && (start.username !== '' || start.password !== '') ? start : null;
  if (creds === null) return { target: target.href, authorization: null };
  const pair = `${decodeURIComponent(creds.username)}:${decodeURIComponent(creds.password)}`;
  return { target: target.href, authorization: `Basic ${Buffer.from(pair).toString('base64')}` };
}

interface FetchedBody {
  status: number;
  body: string;
  url: URL;
}

/** One request's walk: where it started, the URLs seen so far. */
interface Walk {
  start: URL;
  visited: Set<string>;
}

/** Where a redirect leads: the next URL, or the failure that ends the request. */
function nextHop(
  status: number,
  location: string | string[] | undefined,
  url: URL,
  w: Walk,
  max: number,
): URL | Failure {
  const loc = Array.isArray(location) ? location[0] : location;
  if (!loc) return failure(status, 'http_status', { status }, `${status} without Location`);
  const next = URL.parse(loc, url);
  if (next === null) return failure(status, 'bad_redirect', {}, `${status} to an invalid Location`);
  if (next.protocol !== 'http:' && next.protocol !== 'https:')
    return failure(status, 'bad_redirect', {}, `${status} to a non-http(s) Location`);
  const shown = redactUrl(next.href);
  if (!redirectAllowed(w.start, next))
    return failure(
      status,
      'redirect_not_allowed',
      { location: shown },
      `${status} to ${shown}: another host or scheme`,
    );
  if (w.visited.has(next.href)) return failure(status, 'redirect_loop', {}, `redirect loop back to ${shown}`);
  if (w.visited.size > max) return failure(status, 'too_many_redirects', { max }, `more than ${max} redirects`);
  return next;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** One request (plus redirects), each hop under its own timeout, never past the deadline. */
async function attemptOnce(ctx: AttemptContext, w: Walk, accept: string): Promise<Attempt<FetchedBody, Failure>> {
  const { deadlineMs, timeoutMs, maxBodyBytes } = ctx;
  w.visited.clear();
  for (let url = w.start; ;) {
    w.visited.add(url.href);
    const remaining = deadlineMs - Date.now();
    if (remaining <= 0)
      return { ok: false, failure: failure(null, 'deadline_exceeded', {}, 'run deadline exceeded before the request') };
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), Math.min(timeoutMs, remaining));
    // Set once headers arrive, so a body that trickles past the timeout still reports the status it had.
    let status: number | null = null;
    try {
      const { target, authorization } = withoutCredentials(url, w.start);
      const res = await request(target, {
        method: 'GET',
        dispatcher: ctx.agent,
        signal: controller.signal,
        headers: { 'user-agent': ctx.userAgent, accept, ...(authorization ? { authorization } : {}) },
      });
      status = res.statusCode;
      const next = REDIRECT_STATUSES.has(status)
        ? nextHop(status, res.headers.location, url, w, ctx.maxRedirects)
        : classifyStatus(status, res.headers['retry-after'], Date.now());
      if (next !== null) {
        await res.body.dump({ limit: DRAIN_BYTES }).catch(() => undefined);
        if (!(next instanceof URL)) return { ok: false, failure: next };
        url = next;
        continue;
      }
      const body = (await res.body.text()).replace(/^\uFEFF/, '');
      return { ok: true, value: { status, body, url } };
    } catch (err) {
      if (controller.signal.aborted || isTimeout(err))
        return {
          ok: false,
          failure:
            remaining < timeoutMs && controller.signal.aborted
              ? failure(status, 'deadline_exceeded', {}, 'run deadline exceeded')
              : failure(
                  status,
                  'timeout',
                  { seconds: Math.round(timeoutMs / 100) / 10 },
                  `timed out after ${timeoutMs} ms`,
                  true,
                ),
        };
      if (isBodyTooLarge(err)) {
        const why = `body over the ${maxBodyBytes} byte cap`;
        return {
          ok: false,
          failure: failure(status, 'body_too_large', { limit_kib: Math.floor(maxBodyBytes / 1024) }, why),
        };
      }
      const message = redactUrlsIn((err as Error)?.message ?? String(err));
      return { ok: false, failure: classifyNetworkError(errorCode(err), url.hostname, message) };
    } finally {
      clearTimeout(timer);
    }
  }
}

export function createHttpFetcher(opts: HttpFetcherOptions = {}): Fetcher {
  const { deadline, ...settings } = opts;
  const deadlineMs = deadline === undefined ? Date.now() + RUN_DEADLINE_MS : +deadline;
  const o = { ...DEFAULTS, ...settings };
  const ctx: AttemptContext = { ...o, agent: createAgent(o), deadlineMs };
  const limit = pLimit(o.concurrency);

  return {
    async get(url, getOpts): Promise<FetchResult> {
      const started = Date.now();
      const shown = redactUrl(url);
      const start = URL.parse(url);
      if (start === null || (start.protocol !== 'http:' && start.protocol !== 'https:')) {
        const error = `[sources/http] GET ${shown} -> not an http(s) URL`;
        return {
          ok: false,
          status: null,
          latencyMs: 0,
          url: shown,
          detail: { code: 'invalid_url', params: {} },
          error,
        };
      }
      const w: Walk = { start, visited: new Set() };
      const a = await withRetries(() => limit(() => attemptOnce(ctx, w, getOpts?.accept ?? '*/*')), {
        ...o,
        deadlineMs,
      });
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
