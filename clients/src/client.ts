// A small typed client of the Reset Status API: types generated from the API's OpenAPI document (api.d.ts),
// conditional requests (ETag / If-None-Match), a timeout, retries with backoff on 5xx and network errors only, every
// document checked for the fields the client reads, and freshness: a live document past its `meta.stale_after` is
// reported stale and its `reset` unknown, never trusted.
import { z } from 'zod';
import type { components } from './api.d.ts';
import {
  API_MAX_AGE_MS,
  DEFAULT_HISTORY_LIMIT,
  HISTORY_PAGE_PATTERN,
  HISTORY_PAGE_SIZE,
  MAX_BODY_BYTES,
  MAX_HISTORY_EVENTS,
  MAX_HISTORY_PAGES,
  NO_API_URL_MESSAGE,
  PRODUCTION_API_URL,
  type Lang,
  type Plan,
} from './config.ts';

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_RETRIES = 2;
/** First retry after this, doubling each time. */
const RETRY_BACKOFF_MS = 250;

export type Schemas = components['schemas'];
export type Latest = Schemas['Latest'];
export type Forecast = Schemas['Forecast'];
export type History = Schemas['History'];
export type HistoryPage = Schemas['HistoryPage'];
export type ApiEvent = Schemas['Event'];
export type EventType = ApiEvent['type'];
type ApiErrorCode = Schemas['Error']['error']['code'];
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

/** The last body and ETag per URL (a Map is one, in memory). */
export interface EtagCache {
  get(url: string): CacheEntry | undefined;
  set(url: string, entry: CacheEntry): void;
}

export interface ClientOptions {
  baseUrl?: string;
  lang?: Lang | undefined;
  timeoutMs?: number | undefined;
  retries?: number;
  backoffMs?: number;
  cache?: EtagCache | undefined;
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

/** A live document with its freshness at `now`: stale once `meta.stale_after` is past, or unreadable (never trusted). */
export function freshAt<T extends { meta: { stale_after: string } }>(data: T, now: number): Fresh<T> {
  const t = Date.parse(data.meta.stale_after);
  return { data, stale: Number.isNaN(t) || now >= t, staleAfter: data.meta.stale_after };
}

/** `reset` as the client may trust it: null (unknown) once the document is stale. */
export function trustedReset(latest: Fresh<Latest>): boolean | null {
  return latest.stale ? null : latest.data.reset;
}

/**
 * The forecast's probabilities as the client may trust them: null (no probability) once the document is past its
 * `meta.stale_after` by the client's own clock, whatever numbers it carries (a 24-hour chance is about the hours after
 * its issue); a value that is not a probability in (0, 1) counts as none too.
 */
export function trustedProbabilities(forecast: Fresh<Forecast>): {
  probability_24h: number | null;
  probability_48h: number | null;
} {
  const trusted = (p: unknown) => (!forecast.stale && typeof p === 'number' && p > 0 && p < 1 ? p : null);
  return {
    probability_24h: trusted(forecast.data.probability_24h),
    probability_48h: trusted(forecast.data.probability_48h),
  };
}

/**
 * Did today's reset reach `plan`? `yes`; `not_for_plan` (today's posts name other plans); `no_reset` (no reset today);
 * `not_stated` (a reset today whose post does not say, or an API without `today_reach`); `unknown` (reset unknown or
 * the document stale). Anything but the API's three words for the plan counts as not stated, never as yes.
 */
export type PlanAnswer = 'yes' | 'not_for_plan' | 'no_reset' | 'not_stated' | 'unknown';

export function planAnswer(latest: Fresh<Latest>, plan: Plan): PlanAnswer {
  const reset = trustedReset(latest);
  if (reset === null) return 'unknown';
  const reach: unknown = latest.data.today_reach;
  const word = isRecord(reach) && isRecord(reach.plans) ? reach.plans[plan] : undefined;
  // A reset for some plans only is no global reset (`reset: false`) but still today's reset for those plans.
  if (word === 'yes' || word === 'not_stated') return word;
  if (word === 'no') return 'not_for_plan';
  return reset === false && (reach ?? null) === null ? 'no_reset' : 'not_stated';
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function readCapped(res: Response, url: string): Promise<string> {
  const tooBig = (size: number) =>
    new ResetStatusError(
      'invalid_response',
      `${url}: body of ${size} bytes is over the ${MAX_BODY_BYTES}-byte cap`,
      res.status,
      url,
    );
  const declared = Number(res.headers.get('content-length'));
  if (declared > MAX_BODY_BYTES) throw tooBig(declared);
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
      throw tooBig(size);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The most characters of an error document's code or message an error quotes: enough for the API's, no more. */
const MAX_QUOTED_CHARS = 300;
const quoted = z.string().transform((s) => (s.length > MAX_QUOTED_CHARS ? `${s.slice(0, MAX_QUOTED_CHARS)}…` : s));
const ErrorDocument = z.object({ error: z.object({ code: quoted, message: quoted }) });

/** The API's error document in `body` as a ResetStatusError; anything else is a bare HTTP error. */
function errorFrom(body: string, status: number, url: string): ResetStatusError {
  const e = ErrorDocument.safeParse(parseJson(body)).data?.error;
  return e
    ? new ResetStatusError(e.code as ApiErrorCode, `${e.message} (${status} ${e.code})`, status, url)
    : new ResetStatusError('http_error', `HTTP ${status} from ${url}`, status, url);
}

/** What `history()` collected: the newest events across as many pages as the limit needs. */
export interface HistoryRead {
  /** The newest history document as served (its own `events` are only the newest 100 to 199). */
  document: History;
  /** The newest `limit` events (fewer when fewer are recorded), newest first, each once. */
  events: ApiEvent[];
  /** How many events are recorded (of the type asked for): the newest document's `count`. */
  count: number;
  /** Older events exist beyond those returned: the limit or the cap on pages was reached first. */
  truncated: boolean;
  /** Documents read: the newest one and each archived page followed. */
  pagesRead: number;
  /** The data sources those documents credit (creditsOf): show them with the events. */
  credits: Credit[];
}

/** A data source's credit as the API passes it on (`meta.credits`): its name, its link, and the words it asks for. */
export interface Credit {
  name: string;
  url: string;
  notice: string;
}

const CreditShape = z.object({
  name: z.string().min(1).max(100),
  url: z.string().min(1).max(300),
  notice: z.string().min(1).max(200).optional(),
});
/** Credits shown at most: the API has two; more is a broken or hostile answer, not more sources. */
const MAX_CREDITS = 5;
/**
 * The characters a terminal may act on rather than show: C0 controls but newline and tab, DEL, C1 controls (U+0080 to
 * U+009F: 8-bit CSI, OSC, ST...) and the bidi marks, embeddings, overrides and isolates that reorder what is shown.
 */
export const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * The credits the documents carry, as a client must show them: each checked (an http(s) link, a name and notice of
 * printable text, capped), unprintable characters removed, each link once, at most MAX_CREDITS. A credit without a
 * notice is shown as "Data: <name>".
 */
export function creditsOf(docs: readonly unknown[]): Credit[] {
  const out = new Map<string, Credit>();
  for (const doc of docs) {
    const meta = (doc as { meta?: { credits?: unknown } } | null)?.meta;
    for (const raw of Array.isArray(meta?.credits) ? meta.credits : []) {
      const c = CreditShape.safeParse(raw);
      if (!c.success || !URL.canParse(c.data.url)) continue;
      const url = new URL(c.data.url);
      if (url.protocol !== 'https:' && url.protocol !== 'http:') continue;
      // One line of plain text: what a terminal would act on goes, line breaks and tabs become spaces.
      const line = (t: string) => t.replace(UNSAFE, '').replace(/\s+/g, ' ').trim();
      const name = line(c.data.name);
      const notice = line(c.data.notice ?? `Data: ${name}`);
      if (name === '' || notice === '' || out.has(url.href)) continue;
      out.set(url.href, { name, url: url.href, notice });
      if (out.size >= MAX_CREDITS) return [...out.values()];
    }
  }
  return [...out.values()];
}

/** A credit as one line of text: "Data: codex-reset.com (https://codex-reset.com/)". */
export const creditLine = (c: Credit): string => `${c.notice} (${c.url})`;

export interface HistoryFilter {
  type?: EventType | undefined;
  /** At most this many events, 1 to MAX_HISTORY_EVENTS; default DEFAULT_HISTORY_LIMIT (100). */
  limit?: number | undefined;
}

/** What the client reads of every live document. */
const LiveShape = z.looseObject({ meta: z.looseObject({ stale_after: z.string() }) });
/** The fields of a latest document the client reads to answer; a body without them is not the API's answer. */
const LatestShape = LiveShape.extend({
  reset: z.boolean().nullable(),
  today: z.looseObject({ explanation: z.string() }),
});
/** The paging fields a history document must carry for the client to follow it; anything else is not the API. */
const HistoryShape = z.looseObject({
  events: z.array(z.looseObject({ id: z.string() })),
  // An API from before paging has no `next`: its one document is the whole history.
  next: z.string().nullish(),
});
const NewestHistoryShape = HistoryShape.extend({
  count: z.number(),
  page: z.never({ error: 'it is an archived page' }).optional(),
});
const EventShape = z.looseObject({ event: z.looseObject({ id: z.string() }) });
const OpenApiShape = z.looseObject({ openapi: z.string() });

/** A cached body, used only when it is a latest document. */
export function latestFromCache(body: string): Latest | null {
  const doc = parseJson(body);
  return LatestShape.safeParse(doc).success ? (doc as Latest) : null;
}

export type ResetStatusClient = ReturnType<typeof createResetStatusClient>;

export function createResetStatusClient(options: ClientOptions = {}) {
  const configured = options.baseUrl ?? PRODUCTION_API_URL;
  if (configured === null) throw new TypeError(`[reset-status] ${NO_API_URL_MESSAGE}`);
  const baseUrl = configured.replace(/\/+$/, '');
  const { timeoutMs = DEFAULT_TIMEOUT_MS, retries = DEFAULT_RETRIES, backoffMs = RETRY_BACKOFF_MS } = options;
  const { now = Date.now, fetch = globalThis.fetch, cache = new Map<string, CacheEntry>() } = options;
  const query = options.lang === undefined ? {} : { lang: options.lang };

  /**
   * The body of a 2xx at `url`: conditional with the cached ETag (a 304 answers with the cached body), bounded by the
   * timeout, retried with backoff on a network error, a timeout or a 5xx only; any other status is the final answer.
   */
  async function getText(url: string, redirect: RequestRedirect = 'follow'): Promise<string> {
    for (let attempt = 0; ; attempt++) {
      const cached = cache.get(url);
      let failure: ResetStatusError;
      try {
        const res = await fetch(url, {
          headers: { accept: 'application/json', ...(cached ? { 'if-none-match': cached.etag } : {}) },
          redirect,
          signal: AbortSignal.timeout(timeoutMs),
        });
        const maxAge = /max-age=(\d+)/.exec(res.headers.get('cache-control') ?? '');
        const stored = { storedAt: now(), maxAgeMs: maxAge ? Number(maxAge[1]) * 1000 : API_MAX_AGE_MS };
        if (res.status === 304 && cached) {
          cache.set(url, { ...cached, ...stored });
          return cached.body;
        }
        const body = await readCapped(res, url);
        const etag = res.headers.get('etag');
        if (res.ok && etag) cache.set(url, { etag, body, ...stored });
        if (res.ok) return body;
        failure = errorFrom(body, res.status, url);
        // Not a 5xx: the API's answer, final, never retried.
        if (res.status < 500) throw failure;
      } catch (err) {
        if (err instanceof ResetStatusError) throw err;
        const timedOut = err instanceof DOMException && err.name === 'TimeoutError';
        const cause = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
        failure = timedOut
          ? new ResetStatusError('timeout', `no answer from ${url} within ${timeoutMs} ms`, null, url)
          : new ResetStatusError('network', `cannot reach ${url}: ${cause}`, null, url);
      }
      if (attempt >= retries) throw failure;
      await sleep(backoffMs * 2 ** attempt);
    }
  }

  const invalid = (url: string, why: string) => new ResetStatusError('invalid_response', `${url}: ${why}`, 200, url);

  /** The JSON document in `body` when it passes `shape`, else invalid_response naming the first thing wrong. */
  function checked<T>(body: string, shape: z.ZodType, url: string): T {
    const doc = parseJson(body);
    const issue = shape.safeParse(doc).error?.issues[0];
    if (issue)
      throw invalid(url, `not the API's document: ${issue.path.join('.') || 'the document'}: ${issue.message}`);
    return doc as T;
  }

  /** The document at `path` with `params` as its query, when it passes `shape`. */
  async function read<T>(path: string, shape: z.ZodType, params: Record<string, string> = {}): Promise<T> {
    const search = new URLSearchParams(params).toString();
    const url = `${baseUrl}${path}${search ? `?${search}` : ''}`;
    return checked<T>(await getText(url), shape, url);
  }

  /**
   * The archived page `next` names, or a refusal: `next` must be a path (resolved against the base URL, so the request
   * stays on the API's origin) to `/api/history` with one `page` older than the page just read, the same `type` and
   * the same language. Anything else (another host, another path, a loop) is not followed.
   */
  function nextPage(next: string, from: string, type: EventType | undefined, lang: string, before: number) {
    const refuse = (why: string) =>
      invalid(from, `refusing to follow next ${JSON.stringify(next.slice(0, 200))}: ${why}`);
    // `//host/...` is a path to another host, and a backslash is a slash to a browser's URL parser.
    if (!next.startsWith('/') || next.startsWith('//') || next.includes('\\')) throw refuse('not a path on the API');
    if (!URL.canParse(baseUrl + next)) throw refuse('not a URL');
    const base = new URL(`${baseUrl}/`);
    const url = new URL(baseUrl + next);
    if (url.origin !== base.origin) throw refuse(`not on ${base.origin}`);
    if (url.pathname !== `${base.pathname}api/history`) throw refuse('not /api/history');
    const pages = url.searchParams.getAll('page');
    if (pages.length !== 1 || !HISTORY_PAGE_PATTERN.test(pages[0]!)) throw refuse('no page number');
    const page = Number(pages[0]);
    if (page >= before) throw refuse(`page ${page} is not older than page ${before}`);
    if (url.searchParams.getAll('type').join(',') !== (type ?? ''))
      throw refuse(`not the events of type ${type ?? '(any)'}`);
    const langs = url.searchParams.getAll('lang');
    if (langs.length > 1 || (langs[0] ?? 'en') !== lang) throw refuse(`not in ${lang}`);
    url.hash = '';
    return { url: url.href, page };
  }

  /** One archived page at `url`, read as any document (a 404 is the API's not_found). */
  async function fetchPage(url: string, page: number): Promise<HistoryPage> {
    // The API never redirects; a redirect could take the chain off its origin after `next` was checked.
    const body = await getText(url, 'error');
    return checked(body, HistoryShape.extend({ page: z.literal(page) }), url);
  }

  /**
   * The newest `limit` events: the newest document, then the archived pages its `next` chain names, until `limit`
   * events are collected, `next` is null, or the cap on pages is reached (reported as `truncated`). Pages are read one
   * after another, each as any other document (ETag, timeout, retries, a 4xx final).
   *
   * Consistency while the API publishes: the events are those of the newest document as read first, plus older ones.
   * An event added between two requests is not in the newest document already read, and an archived page never
   * changes when a newer event comes; if that event archives a new page, the chain already read points below it and
   * never visits it, and the events it holds were read in the newest document. So nothing is lost or repeated. Only a
   * correction of an already archived event can move one event across a page boundary between two requests; the
   * client drops any event whose id it already has, so a repeat is impossible, but such a moved event can be missed
   * by that one read.
   */
  async function history({ type, limit = DEFAULT_HISTORY_LIMIT }: HistoryFilter = {}): Promise<HistoryRead> {
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_HISTORY_EVENTS)
      throw new RangeError(
        `[reset-status] history limit must be a whole number from 1 to ${MAX_HISTORY_EVENTS}, got ${limit}`,
      );
    const newest = await read<History>('/api/history', NewestHistoryShape, { ...query, ...(type ? { type } : {}) });
    const docs: unknown[] = [newest];
    const events: ApiEvent[] = [];
    const seen = new Set<string>();
    let left = false;
    /** Takes the events not yet seen, up to the limit; `left` says whether some were left over. */
    const take = (list: readonly ApiEvent[]) => {
      const unseen = list.filter((e) => !seen.has(e.id) && seen.add(e.id));
      left = unseen.length > limit - events.length;
      events.push(...unseen.slice(0, limit - events.length));
    };
    take(newest.events);
    let next = newest.next ?? null;
    let from = `${baseUrl}/api/history`;
    let before = Infinity;
    let pagesRead = 1;
    // A page never holds more than page_size events: the pages the limit can need, and never more than the hard cap.
    const pageSize = Number.isInteger(newest.page_size) && newest.page_size >= 1 ? newest.page_size : HISTORY_PAGE_SIZE;
    const maxPages = Math.min(MAX_HISTORY_PAGES, 1 + Math.ceil(limit / pageSize));
    const lang = typeof newest.meta?.lang === 'string' ? newest.meta.lang : (options.lang ?? 'en');
    while (next !== null && events.length < limit && pagesRead < maxPages) {
      const target = nextPage(next, from, type, lang, before);
      const page = await fetchPage(target.url, target.page);
      docs.push(page);
      pagesRead++;
      take(page.events);
      ({ url: from, page: before } = target);
      next = page.next ?? null;
    }
    const truncated = left || next !== null;
    return { document: newest, events, count: newest.count, truncated, pagesRead, credits: creditsOf(docs) };
  }

  async function eventDocument(id: string): Promise<{ event: ApiEvent; credits: Credit[] }> {
    const doc = await read<{ event: ApiEvent }>(`/api/events/${encodeURIComponent(id)}`, EventShape, query);
    return { event: doc.event, credits: creditsOf([doc]) };
  }

  return {
    baseUrl,
    cache,
    latest: async () => freshAt(await read<Latest>('/api/latest', LatestShape, query), now()),
    forecast: async () => freshAt(await read<Forecast>('/api/forecast', LiveShape, query), now()),
    history,
    /** Archived page `page` of /api/history (`?type=` when given): a 404 `not_found` when it is not archived. */
    historyPage: async (page: number, { type }: { type?: EventType | undefined } = {}): Promise<HistoryPage> => {
      if (!HISTORY_PAGE_PATTERN.test(String(page)))
        throw new RangeError(`[reset-status] a history page is a whole number from 1 to 9999999, got ${page}`);
      const search = new URLSearchParams({ ...query, ...(type ? { type } : {}), page: String(page) });
      return fetchPage(`${baseUrl}/api/history?${search}`, page);
    },
    event: async (id: string): Promise<ApiEvent> => (await eventDocument(id)).event,
    /** One event with the credits of the sources it shows (creditsOf): show them with it. */
    eventDocument,
    openapi: (): Promise<unknown> => read('/api/openapi.json', OpenApiShape),
  };
}
