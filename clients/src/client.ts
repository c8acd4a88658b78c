// A small typed client of the Reset Status API: types generated from the API's OpenAPI document (api.d.ts),
// requests through openapi-fetch with conditional requests (ETag / If-None-Match), a timeout, retries with backoff on
// 5xx and network errors only, and freshness: a live document past its `meta.stale_after` is reported stale and its
// `reset` unknown, never trusted.
import createClient from 'openapi-fetch';
import type { components, paths } from './api.d.ts';
import { API_MAX_AGE_MS, DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS, MAX_BODY_BYTES, NO_API_URL_MESSAGE, PRODUCTION_API_URL, RETRY_BACKOFF_MS, type Lang } from './config.ts';

export type Schemas = components['schemas'];
export type Latest = Schemas['Latest'];
export type Forecast = Schemas['Forecast'];
export type History = Schemas['History'];
export type ApiEvent = Schemas['Event'];
export type EventType = Schemas['Event']['type'];
export type ApiErrorCode = Schemas['Error']['error']['code'];
/** The API's codes, and the client's own for what never reached or never came back as an API answer. */
export type ErrorCode = ApiErrorCode | 'network' | 'timeout' | 'http_error' | 'invalid_response';

/** The one error the client throws: `code` is the API's error code when the API answered with its error document. */
export class ResetStatusError extends Error {
  override readonly name = 'ResetStatusError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** The HTTP status, null when no response came. */
    readonly status: number | null,
    readonly url: string,
  ) {
    super(message);
  }
}

export interface CacheEntry {
  etag: string;
  body: string;
  /** Epoch ms of the last response (200 or 304) that confirmed the body. */
  storedAt: number;
  /** The response's Cache-Control max-age, ms. */
  maxAgeMs: number;
}

/** The last body and ETag per URL. */
export interface EtagCache {
  get(url: string): CacheEntry | undefined;
  set(url: string, entry: CacheEntry): void;
}

export function createMemoryCache(): EtagCache {
  const entries = new Map<string, CacheEntry>();
  return { get: (url) => entries.get(url), set: (url, e) => void entries.set(url, e) };
}

export interface ClientOptions {
  baseUrl?: string;
  lang?: Lang;
  timeoutMs?: number;
  retries?: number;
  backoffMs?: number;
  cache?: EtagCache;
  /** The clock freshness is judged by, epoch ms. */
  now?: () => number;
  fetch?: typeof fetch;
}

/** A live document with its freshness as judged by the client's own clock. */
export interface Fresh<T> {
  data: T;
  /** Past `meta.stale_after`: out of date, today's state unknown. */
  stale: boolean;
  staleAfter: string;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function maxAgeOf(cacheControl: string | null): number {
  const m = /max-age=(\d+)/.exec(cacheControl ?? '');
  return m ? Number(m[1]) * 1000 : API_MAX_AGE_MS;
}

/** Whether `meta.stale_after` is past by `now`; an unreadable one counts as past (never trusted). */
export function isStale(staleAfter: string, now: number): boolean {
  const t = Date.parse(staleAfter);
  return Number.isNaN(t) || now >= t;
}

/** `reset` as the client may trust it: null (unknown) once the document is stale. */
export function trustedReset(latest: Fresh<Latest>): boolean | null {
  return latest.stale ? null : latest.data.reset;
}

async function readCapped(res: Response, url: string): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > MAX_BODY_BYTES) throw new ResetStatusError('invalid_response', `${url}: body of ${declared} bytes is over the ${MAX_BODY_BYTES}-byte cap`, res.status, url);
  // Read chunk by chunk so a body without a length (or lying about it) stops at the cap instead of filling memory.
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body?.getReader();
  while (reader) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      throw new ResetStatusError('invalid_response', `${url}: body is over the ${MAX_BODY_BYTES}-byte cap`, res.status, url);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function errorFromBody(body: string, status: number, url: string): ResetStatusError {
  try {
    const doc = JSON.parse(body) as { error?: { code?: unknown; message?: unknown } };
    if (typeof doc.error?.code === 'string' && typeof doc.error.message === 'string') {
      return new ResetStatusError(doc.error.code as ApiErrorCode, `${doc.error.message} (${status} ${doc.error.code})`, status, url);
    }
  } catch {
    // not the API's error document: fall through
  }
  return new ResetStatusError('http_error', `HTTP ${status} from ${url}`, status, url);
}

/**
 * The fetch openapi-fetch calls: conditional with the cached ETag (a 304 answers with the cached body), bounded by the
 * timeout, retried with backoff on a network error, a timeout or a 5xx only; a 4xx is the answer.
 */
function createTransport(opts: Required<Pick<ClientOptions, 'timeoutMs' | 'retries' | 'backoffMs' | 'cache' | 'now'>> & { fetch: typeof fetch }) {
  return async (request: Request): Promise<Response> => {
    const url = request.url;
    for (let attempt = 0; ; attempt++) {
      const cached = opts.cache.get(url);
      const headers = new Headers(request.headers);
      if (cached) headers.set('if-none-match', cached.etag);
      let failure: ResetStatusError;
      try {
        const res = await opts.fetch(url, { method: request.method, headers, signal: AbortSignal.timeout(opts.timeoutMs) });
        if (res.status === 304 && cached) {
          const entry = { ...cached, storedAt: opts.now(), maxAgeMs: maxAgeOf(res.headers.get('cache-control')) };
          opts.cache.set(url, entry);
          return new Response(cached.body, { status: 200, headers: { 'content-type': 'application/json', etag: cached.etag } });
        }
        const body = await readCapped(res, url);
        // A 4xx is the API's answer, final: never retried.
        if (res.status >= 400 && res.status < 500) throw errorFromBody(body, res.status, url);
        if (res.status < 500) {
          const etag = res.headers.get('etag');
          if (res.ok && etag) opts.cache.set(url, { etag, body, storedAt: opts.now(), maxAgeMs: maxAgeOf(res.headers.get('cache-control')) });
          return new Response(body, { status: res.status, headers: res.headers });
        }
        failure = errorFromBody(body, res.status, url);
      } catch (err) {
        if (err instanceof ResetStatusError) throw err;
        const timedOut = err instanceof DOMException && err.name === 'TimeoutError';
        const cause = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
        failure = timedOut
          ? new ResetStatusError('timeout', `no answer from ${url} within ${opts.timeoutMs} ms`, null, url)
          : new ResetStatusError('network', `cannot reach ${url}: ${cause}`, null, url);
      }
      if (attempt >= opts.retries) throw failure;
      await sleep(opts.backoffMs * 2 ** attempt);
    }
  };
}

export type ResetStatusClient = ReturnType<typeof createResetStatusClient>;

export function createResetStatusClient(options: ClientOptions = {}) {
  const configured = options.baseUrl ?? PRODUCTION_API_URL;
  if (configured === null) throw new TypeError(`[reset-status] ${NO_API_URL_MESSAGE}`);
  const baseUrl = configured.replace(/\/+$/, '');
  const now = options.now ?? Date.now;
  const cache = options.cache ?? createMemoryCache();
  const api = createClient<paths>({
    baseUrl,
    fetch: createTransport({
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      retries: options.retries ?? DEFAULT_RETRIES,
      backoffMs: options.backoffMs ?? RETRY_BACKOFF_MS,
      cache,
      now,
      fetch: options.fetch ?? globalThis.fetch,
    }),
  });
  const lang = options.lang;
  const query = lang === undefined ? {} : { lang };

  /** The data of a 200, or the API's error as a ResetStatusError. */
  function unwrap<T>(r: { data?: T; error?: unknown; response: Response }): T {
    if (r.data !== undefined) return r.data;
    const url = r.response.url || baseUrl;
    const err = r.error as { error?: { code?: string; message?: string } } | undefined;
    if (typeof err?.error?.code === 'string') {
      return (() => {
        throw new ResetStatusError(err.error!.code as ApiErrorCode, `${err.error!.message ?? 'error'} (${r.response.status} ${err.error!.code})`, r.response.status, url);
      })();
    }
    throw new ResetStatusError(r.response.ok ? 'invalid_response' : 'http_error', `HTTP ${r.response.status} from ${url} without the API's error document`, r.response.status, url);
  }

  function fresh<T extends { meta: { stale_after: string } }>(data: T): Fresh<T> {
    if (typeof data?.meta?.stale_after !== 'string') throw new ResetStatusError('invalid_response', `${baseUrl}: a live document without meta.stale_after`, 200, baseUrl);
    return { data, stale: isStale(data.meta.stale_after, now()), staleAfter: data.meta.stale_after };
  }

  return {
    baseUrl,
    cache,
    latest: async (): Promise<Fresh<Latest>> => fresh(unwrap(await api.GET('/api/latest', { params: { query } }))),
    forecast: async (): Promise<Fresh<Forecast>> => fresh(unwrap(await api.GET('/api/forecast', { params: { query } }))),
    /**
     * The events of /api/history, filtered and cut client-side. Only the `events` of the document are read: should
     * the history become paged (a newest page with a `next` link), this reads the newest page and follows nothing.
     */
    history: async (filter: { type?: EventType; limit?: number } = {}): Promise<History> => {
      const doc = unwrap(await api.GET('/api/history', { params: { query: { ...query, ...(filter.type ? { type: filter.type } : {}) } } }));
      return filter.limit === undefined ? doc : { ...doc, events: doc.events.slice(0, filter.limit) };
    },
    event: async (id: string): Promise<ApiEvent> => unwrap(await api.GET('/api/events/{id}', { params: { path: { id }, query } })).event,
    openapi: async (): Promise<unknown> => unwrap(await api.GET('/api/openapi.json', {})),
  };
}
