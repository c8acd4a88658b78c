// The real Fetcher: undici (builder/net/http.ts) with a timeout per request, a run deadline, a body cap, the shared
// retry policy and redirects only to the configured scheme and host. Every expected failure comes back as a
// FetchResult value whose detail code is a key of locales/<lang>/checks.json.
import pLimit from 'p-limit';
import { request, type Agent } from 'undici';
import type { Detail } from '../model/schemas.ts';
import {
  createAgent,
  errorCode,
  isTimeout,
  retryableStatus,
  retryAfterOf,
  withRetries,
  type Attempt,
} from '../net/http.ts';
import { LOCAL_USER_AGENT } from '../net/user-agent.ts';
import { redactUrl } from '../redact.ts';
import type { FetchResult, Fetcher } from './fetcher.ts';

export const MAX_BODY_BYTES = 2 * 1024 * 1024;
/** The whole run's network budget: a scheduled run every 15 minutes must never pile up behind a slow source. */
export const RUN_DEADLINE_MS = 60_000;
/** At most this much of a redirect's or a failed status's body is read (to reuse the connection), the rest dropped. */
const DRAIN_BYTES = 128 * 1024;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

const DEFAULTS = {
  timeoutMs: 10_000,
  maxBodyBytes: MAX_BODY_BYTES,
  /** Retries after the first attempt, for 5xx, 429, timeouts and network errors (a request may ask for another number). */
  retries: 2,
  backoffBaseMs: 500,
  /** Redirects followed per request; each must keep the scheme and the host (see redirectAllowed). */
  maxRedirects: 3,
  concurrency: 4,
  userAgent: LOCAL_USER_AGENT,
};

export type HttpFetcherOptions = Partial<typeof DEFAULTS> & {
  /** Absolute end of the run's network budget (Date or epoch ms); every attempt and wait must finish by then. */
  deadline?: Date | number;
};

/** A failed attempt: what the FetchResult reports, and what the retry policy needs. */
const failure = (status: number | null, code: string, params: Detail['params'] = {}, retryable = false) => ({
  status,
  detail: { code, params } as Detail,
  retryable,
  retryAfterMs: null as number | null,
});
type Failure = ReturnType<typeof failure>;

/** A final (non-redirect) status: null for 2xx, else the failure; 5xx and 429 are worth a retry. */
export function classifyStatus(status: number, retryAfter: string | string[] | undefined, nowMs: number) {
  if (status >= 200 && status <= 299) return null;
  // Reddit answers 403 "Blocked" to whole datacenter ranges (GitHub's runners among them): a refusal of this network,
  // which no retry changes (retryableStatus never retries a 4xx but 429).
  const code = status === 429 ? 'rate_limited' : status === 403 ? 'blocked' : 'http_status';
  const f = failure(status, code, code === 'http_status' ? { status } : {}, retryableStatus(status));
  return { ...f, retryAfterMs: retryAfterOf(status, retryAfter, nowMs) };
}

/** A request that got no answer: refused and network errors are retried, a missing host only when DNS was unsure. */
export function classifyNetworkError(code: string | null, host: string): Failure {
  if (code === 'ECONNREFUSED') return failure(null, 'connection_refused', {}, true);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return failure(null, 'dns_error', { host }, code === 'EAI_AGAIN');
  return failure(null, 'network_error', { code: code ?? 'unknown' }, true);
}

/**
 * The redirect policy: the same scheme and host (host and port: another port is another server) as the configured
 * URL. Anything else would let a source send us anywhere, and its credentials with us.
 */
export const redirectAllowed = (start: URL, next: URL): boolean => next.origin === start.origin;

/** Where a redirect leads: the next URL, or the failure that ends the request. */
function nextHop(status: number, location: string | undefined, url: URL, start: URL, seen: Set<string>, max: number) {
  if (!location) return failure(status, 'http_status', { status });
  const next = URL.parse(location, url);
  if (next === null || (next.protocol !== 'http:' && next.protocol !== 'https:'))
    return failure(status, 'bad_redirect');
  if (!redirectAllowed(start, next)) return failure(status, 'redirect_not_allowed', { location: redactUrl(next.href) });
  if (seen.has(next.href)) return failure(status, 'redirect_loop');
  if (seen.size > max) return failure(status, 'too_many_redirects', { max });
  return next;
}

type Settings = typeof DEFAULTS & { agent: Agent; deadlineMs: number };

/**
 * One attempt: the request and its redirects, each hop under its own timeout and never past the deadline.
 * Credentials in the configured URL's userinfo travel as HTTP Basic auth, never in the URL, and only to the
 * configured host (the only host a redirect may lead to).
 */
async function attempt(
  o: Settings,
  start: URL,
  accept: string,
): Promise<Attempt<{ status: number; body: string }, Failure>> {
  const user = `${decodeURIComponent(start.username)}:${decodeURIComponent(start.password)}`;
  const authorization = user === ':' ? {} : { authorization: `Basic ${Buffer.from(user).toString('base64')}` };
  const seen = new Set<string>();
  for (let url = start; ;) {
    seen.add(url.href);
    const remaining = o.deadlineMs - Date.now();
    if (remaining <= 0) return { ok: false, failure: failure(null, 'deadline_exceeded') };
    const signal = AbortSignal.timeout(Math.min(o.timeoutMs, remaining));
    // Set once headers arrive, so a body that trickles past the timeout still reports the status it had.
    let status: number | null = null;
    try {
      const target = new URL(url);
      target.username = target.password = '';
      const headers = { 'user-agent': o.userAgent, accept, ...authorization };
      const res = await request(target.href, { dispatcher: o.agent, signal, headers });
      status = res.statusCode;
      const next = REDIRECT_STATUSES.has(status)
        ? nextHop(status, [res.headers.location].flat()[0], url, start, seen, o.maxRedirects)
        : classifyStatus(status, res.headers['retry-after'], Date.now());
      if (next === null) return { ok: true, value: { status, body: (await res.body.text()).replace(/^\uFEFF/, '') } };
      await res.body.dump({ limit: DRAIN_BYTES }).catch(() => undefined);
      if (!(next instanceof URL)) return { ok: false, failure: next };
      url = next;
    } catch (err) {
      // Aborted by its own timeout, or by the deadline when that came first.
      if (signal.aborted && remaining < o.timeoutMs)
        return { ok: false, failure: failure(status, 'deadline_exceeded') };
      const failed =
        signal.aborted || isTimeout(err)
          ? failure(status, 'timeout', { seconds: Math.round(o.timeoutMs / 100) / 10 }, true)
          : errorCode(err) === 'UND_ERR_RES_EXCEEDED_MAX_SIZE'
            ? failure(status, 'body_too_large', { limit_kib: Math.floor(o.maxBodyBytes / 1024) })
            : classifyNetworkError(errorCode(err), url.hostname);
      return { ok: false, failure: failed };
    }
  }
}

export function createHttpFetcher(opts: HttpFetcherOptions = {}): Fetcher {
  const { deadline = Date.now() + RUN_DEADLINE_MS, ...settings } = opts;
  const o = { ...DEFAULTS, ...settings, deadlineMs: +deadline };
  const s: Settings = { ...o, agent: createAgent(o) };
  const limit = pLimit(o.concurrency);
  return {
    async get(url, getOpts): Promise<FetchResult> {
      const started = Date.now();
      const start = URL.parse(url);
      if (start === null || (start.protocol !== 'http:' && start.protocol !== 'https:'))
        return { ok: false, status: null, latencyMs: 0, detail: { code: 'invalid_url', params: {} } };
      const policy = { ...o, retries: getOpts?.retries ?? o.retries };
      const a = await withRetries(() => limit(() => attempt(s, start, getOpts?.accept ?? '*/*')), policy);
      const latencyMs = Date.now() - started;
      if (a.ok) return { ok: true, ...a.value, latencyMs };
      const { status, retryAfterMs, retryAfterPastDeadline } = a.failure;
      // A 429 that asked for a wait says how long: past the deadline (a retry was due but could not fit), or, when no
      // retry was left, as `retry_after_s` so the model can keep the source unasked until then.
      const seconds = retryAfterMs === null ? null : Math.ceil(retryAfterMs / 1000);
      const detail =
        status !== 429 || seconds === null
          ? a.failure.detail
          : retryAfterPastDeadline
            ? { code: 'rate_limited_retry_after', params: { seconds } }
            : { code: 'rate_limited_wait', params: { retry_after_s: seconds } };
      return { ok: false, status, latencyMs, detail, ...(seconds === null ? {} : { retryAfterS: seconds }) };
    },
  };
}
