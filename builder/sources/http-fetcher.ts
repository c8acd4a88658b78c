// The real Fetcher: Node's HTTP client (builder/net/exchange.ts) with per-request timeouts, a run deadline, a body
// cap, bounded retries and redirects.
// Every expected failure comes back as a FetchResult value whose detail code is a key of locales/<lang>/checks.json.
import pLimit from 'p-limit';
import type { Detail } from '../model/schemas.ts';
import { discard, drain, exchange, headerValue } from '../net/exchange.ts';
import type { FetchResult, Fetcher } from './fetcher.ts';
import { classifyNetworkError, classifyStatus, retryDecision, type Failure } from './http-policy.ts';

export { BACKOFF_MAX_MS, MIN_ATTEMPT_MS, parseRetryAfterMs } from './http-policy.ts';
import { redactUrl, redactUrlsIn } from './redact.ts';
import { LOCAL_USER_AGENT } from './user-agent.ts';

export const REQUEST_TIMEOUT_MS = 10_000;
export const MAX_BODY_BYTES = 2 * 1024 * 1024;
export const MAX_RETRIES = 2;
/** The whole run's network budget: a scheduled run every 15 minutes must never pile up behind a slow source. */
export const RUN_DEADLINE_MS = 60_000;
/** Redirects followed per request; each must keep the scheme and stay on an allowed host (see redirectVerdict). */
export const MAX_REDIRECTS = 3;
export const MAX_CONCURRENT_REQUESTS = 4;
export const BACKOFF_BASE_MS = 500;
export const USER_AGENT = LOCAL_USER_AGENT;

export interface HttpFetcherOptions {
  /** Absolute end of the run's network budget (Date or epoch ms); every attempt and wait must finish by then. */
  deadline?: Date | number;
  timeoutMs?: number;
  maxBodyBytes?: number;
  /** Retries after the first attempt, for 5xx, 429 and network errors. */
  retries?: number;
  backoffBaseMs?: number;
  maxRedirects?: number;
  concurrency?: number;
  userAgent?: string;
}

type Attempt =
  | { ok: true; status: number; body: string; url: string }
  | { ok: false; status: number | null; detail: Detail; error: string; retryable: boolean; retryAfterMs: number | null };

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

function errorCode(err: unknown): string | null {
  // Happy-eyeballs connects report an AggregateError; the first inner error carries the useful code.
  const e = err as { code?: unknown; errors?: { code?: unknown }[]; cause?: { code?: unknown } };
  for (const c of [e?.code, e?.errors?.[0]?.code, e?.cause?.code]) if (typeof c === 'string') return c;
  return null;
}

function seconds(ms: number): number {
  return Math.round(ms / 100) / 10;
}

/** At most this much of a redirect's or a failed status's body is read (to reuse the connection), the rest dropped. */
const DRAIN_BYTES = 128 * 1024;

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
function splitCredentials(url: string, start: URL): { target: string; authorization: string | null } {
  const u = new URL(url);
  const user = u.username;
  const pass = u.password;
  u.username = '';
  u.password = '';
  const creds = user !== '' || pass !== '' ? { user, pass } : start.host === u.host && (start.username !== '' || start.password !== '') ? { user: start.username, pass: start.password } : null;
  if (creds === null) return { target: u.href, authorization: null };
  const token = Buffer.from(`${decodeURIComponent(creds.user)}:${decodeURIComponent(creds.pass)}`).toString('base64');
  return { target: u.href, authorization: `Basic ${token}` };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createHttpFetcher(opts: HttpFetcherOptions = {}): Fetcher {
  const deadlineMs = opts.deadline === undefined ? Date.now() + RUN_DEADLINE_MS : +opts.deadline;
  const timeoutMs = opts.timeoutMs ?? REQUEST_TIMEOUT_MS;
  const maxBodyBytes = opts.maxBodyBytes ?? MAX_BODY_BYTES;
  const retries = opts.retries ?? MAX_RETRIES;
  const backoffBaseMs = opts.backoffBaseMs ?? BACKOFF_BASE_MS;
  const maxRedirects = opts.maxRedirects ?? MAX_REDIRECTS;
  const userAgent = opts.userAgent ?? USER_AGENT;
  const limit = pLimit(opts.concurrency ?? MAX_CONCURRENT_REQUESTS);

  const fail = (
    url: string,
    status: number | null,
    code: string,
    params: Record<string, string | number>,
    why: string,
    retryable = false,
    retryAfterMs: number | null = null,
  ): Attempt => ({ ok: false, status, detail: { code, params }, error: `[sources/http] GET ${redactUrl(url)} -> ${why}`, retryable, retryAfterMs });

  const failedAttempt = (url: string, f: Failure): Attempt => ({ ok: false, status: f.status, detail: f.detail, error: `[sources/http] GET ${redactUrl(url)} -> ${f.why}`, retryable: f.retryable, retryAfterMs: f.retryAfterMs });

  /** One HTTP exchange (plus redirects), each hop under its own timeout, never past the deadline. */
  async function attemptOnce(startUrl: string, accept: string, allowedHosts: readonly string[]): Promise<Attempt> {
    const visited = new Set<string>();
    const start = new URL(startUrl);
    let url = startUrl;
    for (let hop = 0; ; hop++) {
      visited.add(url);
      const remaining = deadlineMs - Date.now();
      if (remaining <= 0) return fail(url, null, 'deadline_exceeded', {}, 'run deadline exceeded before the request');
      const hitsDeadline = remaining < timeoutMs;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), Math.min(timeoutMs, remaining));
      // Set once headers arrive, so a body that trickles past the timeout still reports the status it had.
      let statusSeen: number | null = null;
      const onAbort = (): Attempt =>
        hitsDeadline
          ? fail(url, statusSeen, 'deadline_exceeded', {}, 'run deadline exceeded', false)
          : fail(url, statusSeen, 'timeout', { seconds: seconds(timeoutMs) }, `timed out after ${timeoutMs} ms`, true);
      try {
        const { target, authorization } = splitCredentials(url, start);
        const res = await exchange({
          url: target,
          method: 'GET',
          headers: { 'user-agent': userAgent, accept, ...(authorization ? { authorization } : {}) },
          signal: controller.signal,
        });
        const status = res.statusCode;
        statusSeen = status;
        if (REDIRECT_STATUSES.has(status)) {
          await drain(res.body, DRAIN_BYTES);
          const location = headerValue(res.headers, 'location');
          if (!location) return fail(url, status, 'http_status', { status }, `${status} without Location`);
          let next: URL;
          try {
            next = new URL(location, url);
          } catch {
            return fail(url, status, 'bad_redirect', {}, `${status} to an invalid Location`);
          }
          if (next.protocol !== 'http:' && next.protocol !== 'https:') return fail(url, status, 'bad_redirect', {}, `${status} to a non-http(s) Location`);
          if (!redirectAllowed(start, next, allowedHosts)) {
            return fail(url, status, 'redirect_not_allowed', { location: redactUrl(next.href) }, `${status} to ${redactUrl(next.href)}: another host or scheme`);
          }
          if (visited.has(next.href)) return fail(url, status, 'redirect_loop', {}, `redirect loop back to ${redactUrl(next.href)}`);
          if (hop >= maxRedirects) return fail(url, status, 'too_many_redirects', { max: maxRedirects }, `more than ${maxRedirects} redirects`);
          url = next.href;
          continue;
        }
        const failed = classifyStatus(status, headerValue(res.headers, 'retry-after'), Date.now());
        if (failed !== null) {
          await drain(res.body, DRAIN_BYTES);
          return failedAttempt(url, failed);
        }
        const declared = Number(headerValue(res.headers, 'content-length') ?? NaN);
        if (declared > maxBodyBytes) {
          discard(res.body);
          return fail(url, status, 'body_too_large', { limit_kib: Math.floor(maxBodyBytes / 1024) }, `body of ${declared} bytes over the ${maxBodyBytes} byte cap`);
        }
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of res.body as AsyncIterable<Buffer>) {
          size += chunk.length;
          if (size > maxBodyBytes) {
            discard(res.body);
            return fail(url, status, 'body_too_large', { limit_kib: Math.floor(maxBodyBytes / 1024) }, `body over the ${maxBodyBytes} byte cap`);
          }
          chunks.push(chunk);
        }
        const body = Buffer.concat(chunks).toString('utf8').replace(/^\uFEFF/, '');
        return { ok: true, status, body, url };
      } catch (err) {
        if (controller.signal.aborted) return onAbort();
        return failedAttempt(url, classifyNetworkError(errorCode(err), new URL(url).hostname, redactUrlsIn((err as Error)?.message ?? String(err))));
      } finally {
        clearTimeout(timer);
      }
    }
  }

  return {
    async get(url, getOpts): Promise<FetchResult> {
      const started = Date.now();
      const accept = getOpts?.accept ?? '*/*';
      let parsedUrl: URL | null = null;
      try {
        parsedUrl = new URL(url);
      } catch {
        // handled below
      }
      if (parsedUrl === null || (parsedUrl.protocol !== 'http:' && parsedUrl.protocol !== 'https:')) {
        return { ok: false, status: null, latencyMs: 0, url: redactUrl(url), detail: { code: 'invalid_url', params: {} }, error: `[sources/http] GET ${redactUrl(url)} -> not an http(s) URL` };
      }
      const done = (a: Attempt): FetchResult => {
        const latencyMs = Date.now() - started;
        return a.ok ? { ok: true, status: a.status, body: a.body, latencyMs, url: redactUrl(a.url) } : { ok: false, status: a.status, latencyMs, url: redactUrl(url), detail: a.detail, error: a.error };
      };
      for (let attempt = 0; ; attempt++) {
        const a = await limit(() => attemptOnce(url, accept, getOpts?.redirectHosts ?? []));
        if (a.ok) return done(a);
        const failure: Failure = { status: a.status, detail: a.detail, why: a.error, retryable: a.retryable, retryAfterMs: a.retryAfterMs };
        const next = retryDecision(failure, attempt, retries, deadlineMs - Date.now(), backoffBaseMs);
        if (!next.retry) return done({ ...a, detail: next.failure.detail, error: next.failure.why });
        await sleep(next.waitMs);
      }
    },
  };
}
