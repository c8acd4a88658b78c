// The one router, shared by the CloudFront Function, the Worker and the local preview. Pure and dependency-free: it
// maps a request to an object key or answers it itself. It is bundled into a CloudFront Function (runtime 2.0, ES 5.1
// with few additions), so it keeps to plain functions and simple syntax, and imports nothing but the contract and the
// error messages.
import de from '../../locales/de/errors.json' with { type: 'json' };
import en from '../../locales/en/errors.json' with { type: 'json' };
import ja from '../../locales/ja/errors.json' with { type: 'json' };
import ko from '../../locales/ko/errors.json' with { type: 'json' };
import zh from '../../locales/zh/errors.json' with { type: 'json' };
import {
  BUILDS_STOPPED_VARIANT,
  CACHE_CONTROL,
  DEFAULT_LANG,
  EDGE_EVENT_KEY_PREFIX,
  EDGE_FRESHNESS_KEY,
  EVENT_ID_PATTERN,
  EVENT_TYPES,
  HTML_CONTENT_TYPE,
  FOLLOW_DOCUMENTS,
  INDEX_KEY,
  LICENSE_KEY,
  EXPOSE_HEADERS,
  JSON_CONTENT_TYPE,
  LANGS,
  OPENAPI_KEY,
  UNKNOWN_VARIANT_ENDPOINTS,
  endpointKey,
  eventKey,
  expiredForecastKey,
  expiredForecastPageKey,
  followDocumentKey,
  historyByTypeKey,
  historyPageKey,
  HISTORY_PAGE_PATTERN,
  isEndpoint,
  isEventType,
  isBadgeDocument,
  isFollowDocument,
  isLang,
  pageKey,
  schemaKey,
  TEXT_CONTENT_TYPE,
  type ErrorCode,
  unknownPageKey,
  unknownBadgeKey,
  unknownVariantKey,
  type Endpoint,
  type Lang,
} from '../contract.ts';

export const MAX_URI_LENGTH = 512;
export const MAX_QUERY_LENGTH = 1024;
export const MAX_QUERY_PARAMS = 20;

const MESSAGES: Record<Lang, Record<keyof typeof en, string>> = { en, de, ko, ja, zh };
const SAFE_PATH = /^\/[A-Za-z0-9._~/-]*$/;
const ALLOW = 'GET, HEAD, OPTIONS';

export interface RouteRequest {
  method: string;
  /** The path as received, still percent-encoded, without the query string. */
  uri: string;
  /** The raw query string without the leading `?` (empty when none). */
  query: string;
}

type Answer = { kind: 'response'; status: number; headers: Record<string, string>; body: string };
export type RouteResult = { kind: 'object'; key: string; lang: Lang | null; headers: Record<string, string> } | Answer;

/** Headers of every answer but the empty preflight one. */
export function baseHeaders(contentLanguage: string): Record<string, string> {
  return {
    'content-type': JSON_CONTENT_TYPE,
    'cache-control': CACHE_CONTROL,
    'access-control-allow-origin': '*',
    'access-control-expose-headers': EXPOSE_HEADERS,
    'content-language': contentLanguage,
  };
}

/** Caps untrusted input before it is echoed in a message. */
function echo(value: string): string {
  return value.length > 64 ? value.slice(0, 64) + '…' : value;
}

/**
 * The JSON error answer with message `key` in `lang`. Its `error.code` is the key, except that a missing event is
 * `not_found` with the event's own message.
 */
export function errorResponse(
  status: number,
  lang: Lang,
  key: ErrorCode | 'event_not_found',
  params: Record<string, string>,
  validValues?: readonly string[],
): Answer {
  const message = MESSAGES[lang][key].replace(/\{\{(\w+)\}\}/g, function (_m: string, name: string) {
    return Object.prototype.hasOwnProperty.call(params, name) ? (params[name] as string) : '';
  });
  const code = key === 'event_not_found' ? 'not_found' : key;
  const error: Record<string, unknown> = { status: status, code: code, message: message };
  if (validValues) error.valid_values = validValues.slice();
  const headers = baseHeaders(lang);
  if (status === 405) headers['allow'] = ALLOW;
  const body = JSON.stringify({ error: error, meta: { lang: lang } });
  return { kind: 'response', status: status, headers: headers, body: body };
}

/** A parameter value that is none of `valid`: 400, naming the valid values in the message and the body. */
function invalidValue(lang: Lang, key: ErrorCode, value: string, valid: readonly string[]): Answer {
  return errorResponse(400, lang, key, { value: echo(value), valid: valid.join(', ') }, valid);
}

/** An object to serve; `lang` null for the language-neutral ones, which say `en`. */
function object(key: string, lang: Lang | null, contentType?: string): RouteResult {
  const headers = baseHeaders(lang || 'en');
  if (contentType) headers['content-type'] = contentType;
  return { kind: 'object', key: key, lang: lang, headers: headers };
}

/**
 * Case-folds a parameter value the way the contract means "case-insensitive": ASCII letters only. `toLowerCase`
 * alone folds beyond ASCII (the Kelvin sign U+212A becomes `k`, so `lang=%E2%84%AAo` would be Korean); a value with
 * anything outside printable ASCII names no language or type and is returned as it is, to be refused.
 */
function asciiLower(s: string): string {
  return /^[\x20-\x7e]*$/.test(s) ? s.toLowerCase() : s;
}

/** Splits a raw query string into decoded name → values. Returns null on malformed percent-encoding. */
export function parseQuery(query: string): Record<string, string[]> | null {
  // No prototype: a parameter named __proto__ or constructor is an own key like any other.
  const out: Record<string, string[]> = Object.create(null);
  const parts = query.split('&');
  for (let i = 0; i < parts.length; i++) {
    if (parts[i] === '') continue;
    const pair = (parts[i] as string).replace(/\+/g, ' ').split('=');
    try {
      const name = decodeURIComponent(pair[0] as string);
      (out[name] || (out[name] = [])).push(decodeURIComponent(pair.slice(1).join('=')));
    } catch (_e) {
      return null;
    }
  }
  return out;
}

/**
 * Routes one request. Rules, in order: request size limits; OPTIONS → 204 preflight; methods other than GET/HEAD → 405;
 * malformed query → 400; `lang` (default en, case-insensitive, exactly once) → 400 when unsupported or repeated; path →
 * object key, or 404/400 answered here. Unknown parameters are ignored. `ctx` (the clock and the edge store's values)
 * decides which variant of a present-tense document is served and whether an event id exists; without it every document
 * is served as published and any well-formed event id goes to the origin.
 */
export function route(req: RouteRequest, ctx?: EdgeContext): RouteResult {
  if (req.uri.length > MAX_URI_LENGTH || req.query.length > MAX_QUERY_LENGTH)
    return errorResponse(414, 'en', 'request_too_long', {});
  if (req.method === 'OPTIONS') {
    const headers = baseHeaders('');
    delete headers['content-type'];
    delete headers['content-language'];
    headers['access-control-allow-methods'] = ALLOW;
    headers['access-control-allow-headers'] = '*';
    headers['access-control-max-age'] = '86400';
    return { kind: 'response', status: 204, headers: headers, body: '' };
  }
  const q = parseQuery(req.query);
  const langs = q === null ? undefined : q['lang'];
  const wanted = langs !== undefined && langs.length === 1 ? asciiLower(langs[0] as string) : DEFAULT_LANG;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    // In the selected language when there is a valid one: the method is the error, not the language.
    return errorResponse(405, isLang(wanted) ? wanted : 'en', 'method_not_allowed', {
      method: echo(req.method.replace(/[^A-Za-z-]/g, '?')),
    });
  }
  if (q === null) return errorResponse(400, 'en', 'malformed_query', {});
  let count = 0;
  for (const k in q) count += (q[k] as string[]).length;
  if (count > MAX_QUERY_PARAMS) return errorResponse(400, 'en', 'too_many_parameters', {});
  if (langs !== undefined && langs.length > 1) return errorResponse(400, 'en', 'ambiguous_parameter', { name: 'lang' });
  if (!isLang(wanted)) return invalidValue('en', 'unsupported_lang', (langs as string[])[0] as string, LANGS);
  return routePath(req.uri, wanted, q, ctx);
}

/** The path of a request whose method, query and language are valid. */
function routePath(uri: string, lang: Lang, q: Record<string, string[]>, ctx?: EdgeContext): RouteResult {
  const notFound = () => errorResponse(404, lang, 'not_found', { path: echo(uri) });
  if (!SAFE_PATH.test(uri) || uri.indexOf('//') !== -1 || /\/\.\.?(\/|$)/.test(uri))
    return errorResponse(400, lang, 'invalid_path', {});
  const stale = unknownDate(ctx);
  // The human page: `/` (in `lang`, English by default), `/<lang>` and `/<lang>/`. Made from the documents it is
  // served with: today's unknown variants, else the expired forecast once that holds no longer, else the build's.
  const page = uri === '/' ? lang : /^\/[a-z]{2}\/?$/.test(uri) ? uri.slice(1, 3) : '';
  if (isLang(page)) {
    const key = stale
      ? unknownPageKey(page, stale)
      : forecastExpired(ctx)
        ? expiredForecastPageKey(page)
        : pageKey(page);
    return object(key, page, HTML_CONTENT_TYPE);
  }
  const segs = uri.split('/'); // segs[0] is '' (leading slash)
  if (segs[1] !== 'api') return notFound();
  if (segs.length === 2 || (segs.length === 3 && segs[2] === '')) return object(INDEX_KEY, null);
  const name = segs[2] as string;
  const file = segs[3] as string;
  if (segs.length === 4 && name === 'events') {
    // A malformed id and, when the store lists every published id, an unknown one: the same translated 404, here
    // at the edge rather than from the origin.
    if (!EVENT_ID_PATTERN.test(file) || (ctx !== undefined && ctx.freshness !== null && ctx.eventKnown === false))
      return errorResponse(404, lang, 'event_not_found', { id: echo(file) });
    return object(eventKey(lang, file), lang);
  }
  if (segs.length === 4 && name === 'schemas' && /^[a-z0-9-]{1,40}\.json$/.test(file))
    return object(schemaKey(file), null);
  if (segs.length !== 3) return notFound();
  if (name === 'openapi.json') return object(OPENAPI_KEY, null);
  if ('api/' + name === LICENSE_KEY) return object(LICENSE_KEY, null, TEXT_CONTENT_TYPE);
  if (isFollowDocument(name)) {
    const key = stale && isBadgeDocument(name) ? unknownBadgeKey(lang, name) : followDocumentKey(lang, name);
    return object(key, lang, FOLLOW_DOCUMENTS[name]);
  }
  if (name === 'history' && (q['type'] || q['page'])) return historyRoute(q, lang, uri);
  return isEndpoint(name) ? object(liveKey(lang, name, ctx), lang) : notFound();
}

/**
 * `/api/history` with `type` (case-insensitive, ASCII only, as lang is) or `page`, each at most once. A page value
 * that names no page is a missing page, as a malformed event id is a missing event: the same 404 an unarchived page
 * gets from the origin.
 */
function historyRoute(q: Record<string, string[]>, lang: Lang, uri: string): RouteResult {
  const types = q['type'] || [];
  const pages = q['page'] || [];
  if (types.length > 1) return errorResponse(400, lang, 'ambiguous_parameter', { name: 'type' });
  const type = types.length === 0 ? null : asciiLower(types[0] as string);
  if (type !== null && !isEventType(type)) return invalidValue(lang, 'unknown_type', types[0] as string, EVENT_TYPES);
  if (pages.length === 0) return object(historyByTypeKey(lang, type!), lang);
  if (pages.length > 1) return errorResponse(400, lang, 'ambiguous_parameter', { name: 'page' });
  const p = pages[0] as string;
  if (!HISTORY_PAGE_PATTERN.test(p)) return errorResponse(404, lang, 'not_found', { path: echo(uri + '?page=' + p) });
  return object(historyPageKey(lang, type, +p), lang);
}

/**
 * The edge store's values as the router uses them (see EDGE_* in contract.ts): until when the build's present-tense
 * documents hold (epoch ms), the build's UTC date and the first instant of the next (epoch ms), the dates it
 * published `unknown` variants for, one a day from buildDate on, and until when its forecast holds (epoch ms; null in
 * a value without one, whose build published no expired forecast: the forecast is then served as published).
 */
export interface EdgeFreshness {
  staleAfter: number;
  buildDate: string;
  nextDay: number;
  variantDates: string[];
  forecastStaleAfter: number | null;
}

/**
 * The clock (epoch ms); the store's values, null when it has none usable (nothing published yet, or unreadable):
 * documents are then served as they are; whether the requested event id is in the store, null when not looked up.
 */
export interface EdgeContext {
  now: number;
  freshness: EdgeFreshness | null;
  eventKnown: boolean | null;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
/** More dates than any build publishes: a longer list is not ours. */
const MAX_VARIANT_DATES = 31;

/** Reads the store's freshness value; anything unexpected counts as no value (the store is written by us, but guard). */
export function parseFreshness(value: unknown): EdgeFreshness | null {
  try {
    const raw = JSON.parse(value as string);
    const staleAfter = Date.parse(raw.stale_after);
    const nextDay = Date.parse(raw.next_date + 'T00:00:00Z');
    const dates = raw.variant_dates;
    // A missing field parses as NaN or fails the pattern; a non-object value throws on the property access.
    if (!(staleAfter === staleAfter && nextDay === nextDay && ISO_DATE.test(raw.build_date + raw.next_date.slice(10))))
      return null;
    if (!Array.isArray(dates) || dates.length < 2 || dates.length > MAX_VARIANT_DATES || dates[0] !== raw.build_date)
      return null;
    for (let i = 0; i < dates.length; i++) if (typeof dates[i] !== 'string' || !ISO_DATE.test(dates[i])) return null;
    const forecastStaleAfter = Date.parse(raw.forecast_stale_after);
    return {
      staleAfter: staleAfter,
      buildDate: raw.build_date,
      nextDay: nextDay,
      variantDates: dates,
      forecastStaleAfter: forecastStaleAfter === forecastStaleAfter ? forecastStaleAfter : null,
    };
  } catch (_e) {
    return null;
  }
}

/**
 * The date whose `unknown` variants the present-tense documents (latest, status, the badge, the page) are served
 * from, or null while the build's answer holds (before stale_after, never later than the build's UTC date) or without
 * a store. On the build's date and each later one the build published variants for, that date's; after the last of
 * them BUILDS_STOPPED_VARIANT, the dateless one (it names no day rather than a wrong one). The day is counted from
 * the clock in whole UTC days after the build's: plain arithmetic, no date formatting at the edge.
 */
function unknownDate(ctx: EdgeContext | undefined): string | null {
  const f = ctx && ctx.freshness;
  if (!f || ctx!.now < f.staleAfter) return null;
  const day = ctx!.now < f.nextDay ? 0 : Math.floor((ctx!.now - f.nextDay) / 86400000) + 1;
  return day < f.variantDates.length ? (f.variantDates[day] as string) : BUILDS_STOPPED_VARIANT;
}

/** Whether the clock is at or past the forecast's own stale_after (never without a store or a value for it). */
function forecastExpired(ctx: EdgeContext | undefined): boolean {
  const f = ctx && ctx.freshness;
  return !!f && f.forecastStaleAfter !== null && ctx!.now >= f.forecastStaleAfter;
}

/**
 * The object an endpoint is served from: its `unknown` variant once the build's answer no longer holds; the forecast's
 * expired variant once the forecast's own stale_after has passed.
 */
export function liveKey(lang: Lang, endpoint: Endpoint, ctx: EdgeContext | undefined): string {
  if (endpoint === 'forecast') return forecastExpired(ctx) ? expiredForecastKey(lang) : endpointKey(lang, endpoint);
  const d = UNKNOWN_VARIANT_ENDPOINTS.indexOf(endpoint) === -1 ? null : unknownDate(ctx);
  return d === null ? endpointKey(lang, endpoint) : unknownVariantKey(lang, d, endpoint);
}

/** The event id a request path asks for, which the edge looks up in the store before routing; null for other paths. */
export function eventIdOf(uri: string): string | null {
  const m = /^\/api\/events\/([^/]+)$/.exec(uri);
  return m !== null && EVENT_ID_PATTERN.test(m[1] as string) ? (m[1] as string) : null;
}

/**
 * What the CloudFront Function reads from its KeyValueStore for a request, from the store's values as a flat map (the
 * preview's edge-store.json, the Worker's copy of it): the freshness values and whether the event id is published.
 */
export function edgeContextFrom(store: Readonly<Record<string, string>>, uri: string, now: number): EdgeContext {
  const has = Object.prototype.hasOwnProperty.bind(store);
  const freshness = parseFreshness(has(EDGE_FRESHNESS_KEY) ? store[EDGE_FRESHNESS_KEY] : undefined);
  const id = freshness === null ? null : eventIdOf(uri);
  return { now: now, freshness: freshness, eventKnown: id === null ? null : has(EDGE_EVENT_KEY_PREFIX + id) };
}
