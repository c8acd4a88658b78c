// The shared vocabulary of the public contract: languages, event types, the event id pattern, content types, the
// contract headers and the object key layout. Every stage (model, render, publish, the edge router) imports it from
// here and nowhere keeps a copy. It imports nothing, and the CloudFront Function bundle includes it, so it keeps to
// plain constants and small functions (see scripts/build-edge.ts for the syntax the edge runtime accepts).

export const LANGS = ['en', 'de', 'ko', 'ja', 'zh'] as const;
export type Lang = (typeof LANGS)[number];
export const DEFAULT_LANG: Lang = 'en';

export const EVENT_TYPES = ['global_reset', 'banked_grant', 'policy_change'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Event ids: 1-80 characters of a-z 0-9 . _ -, starting with a letter or digit (safe in a URL path and a key). */
export const EVENT_ID_PATTERN_SOURCE = '^[a-z0-9][a-z0-9._-]{0,79}$';
export const EVENT_ID_PATTERN = new RegExp(EVENT_ID_PATTERN_SOURCE);

/** The endpoints served per language at `api/<lang>/<endpoint>.json`. */
export const ENDPOINTS = ['latest', 'history', 'forecast', 'status', 'signals', 'accuracy'] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
export const CACHE_CONTROL = 'public, max-age=30';
/** Private objects (state, manifests, locks) are never cached. */
export const NO_STORE = 'no-store';

/** The root every public object lies under. */
export const API_ROOT = 'api/';
export const INDEX_KEY = 'api/index.json';
export const OPENAPI_KEY = 'api/openapi.json';
/** Served, with status 404, for a well-formed key that has no object (the CDN's custom error response). */
export const NOT_FOUND_KEY = 'api/errors/not-found.json';
/** The not-found document carries every language, so its Content-Language lists them all. */
export const NOT_FOUND_CONTENT_LANGUAGE = LANGS.join(', ');

/** Whether `value` is one of `list` (indexOf, not includes: the edge runtime is ES 5.1 with few additions). */
const isOneOf = <T extends string>(list: readonly T[], value: string): value is T =>
  (list as readonly string[]).indexOf(value) !== -1;

export const isLang = (value: string): value is Lang => isOneOf(LANGS, value);
export const isEventType = (value: string): value is EventType => isOneOf(EVENT_TYPES, value);
export const isEndpoint = (value: string): value is Endpoint => isOneOf(ENDPOINTS, value);

/** `api/<lang>/<endpoint>.json` */
export const endpointKey = (lang: Lang, endpoint: Endpoint): string => API_ROOT + lang + '/' + endpoint + '.json';

/** `api/<lang>/events/<id>.json` */
export const eventKey = (lang: Lang, id: string): string => API_ROOT + lang + '/events/' + id + '.json';

/** `api/<lang>/history/<type>.json`: the history filtered by `?type=`. */
export const historyByTypeKey = (lang: Lang, type: EventType): string => API_ROOT + lang + '/history/' + type + '.json';

/**
 * History is paged: `/api/history` (and `?type=`) holds the newest events; older ones are archived in pages of
 * HISTORY_PAGE_SIZE counted from the oldest, page N holding events (N-1)*size+1 .. N*size, once a full page of newer
 * events follows. The newest document so holds `size` to `2*size - 1` events (a reader finds the newest `size` in one
 * request), and an archived page changes only when an event older than its newest is added, corrected or removed.
 */
export const HISTORY_PAGE_SIZE = 100;
/** `page` values the router passes on: a positive integer without leading zeros, at most 7 digits. */
export const HISTORY_PAGE_PATTERN = /^[1-9][0-9]{0,6}$/;

/** How many pages are archived for `total` events (the newest document holds the rest). */
export const archivedPageCount = (total: number): number => Math.max(0, Math.floor(total / HISTORY_PAGE_SIZE) - 1);

/** `api/<lang>/history/pages/<n>.json`, or `api/<lang>/history/<type>/pages/<n>.json`: archived page `n` (from 1). */
export const historyPageKey = (lang: Lang, type: EventType | null, page: number): string =>
  API_ROOT + lang + '/history/' + (type === null ? '' : type + '/') + 'pages/' + page + '.json';

/** The path, with its query, that serves archived page `page` (a history document's `next` link). */
export const historyPagePath = (lang: Lang, type: EventType | null, page: number): string =>
  '/api/history?lang=' + lang + (type === null ? '' : '&type=' + type) + '&page=' + page;

/** `api/schemas/<file>`, where `file` is `<name>.json`. */
export const schemaKey = (file: string): string => API_ROOT + 'schemas/' + file;

/** Response headers a browser script may read (CORS hides every other one). */
export const EXPOSE_HEADERS = 'ETag, Date, Last-Modified, Content-Language, Content-Length';
/** The license texts of the third-party data the API carries, as plain text. */
export const LICENSE_KEY = 'api/license.txt';
export const TEXT_CONTENT_TYPE = 'text/plain; charset=utf-8';
/** Every `error.code` the API answers with; a missing event is `not_found`, whether its id is malformed or unknown. */
export const ERROR_CODES = [
  'unsupported_lang',
  'ambiguous_parameter',
  'unknown_type',
  'not_found',
  'method_not_allowed',
  'invalid_path',
  'request_too_long',
  'too_many_parameters',
  'malformed_query',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export const HTML_CONTENT_TYPE = 'text/html; charset=utf-8';

/** `api/<lang>/index.html`: the human page served at `/<lang>/`; under the API root, published and pruned with it. */
export const pageKey = (lang: Lang): string => API_ROOT + lang + '/index.html';

// Follow-it documents: one per language at `api/<lang>/<name>`, routed like the JSON endpoints
// (`/api/<name>?lang=`), each with its own content type. All stable (bytes change only with content) except the badge.
export const FOLLOW_DOCUMENTS = {
  'feed.atom': 'application/atom+xml; charset=utf-8',
  'feed.json': 'application/feed+json; charset=utf-8',
  'calendar.ics': 'text/calendar; charset=utf-8',
  'badge.json': 'application/json; charset=utf-8',
  'badge.svg': 'image/svg+xml; charset=utf-8',
} as const;
export type FollowDocumentName = keyof typeof FOLLOW_DOCUMENTS;
/** `api/<lang>/<name>` */
export const followDocumentKey = (lang: Lang, name: FollowDocumentName): string => API_ROOT + lang + '/' + name;
export const isFollowDocument = (value: string): value is FollowDocumentName =>
  Object.prototype.hasOwnProperty.call(FOLLOW_DOCUMENTS, value);
/** Where the API is served; feeds and the calendar need absolute links (RESET_PUBLIC_BASE_URL in production). */
export const DEFAULT_PUBLIC_URL = 'http://127.0.0.1:8080';

// The edge store: what each refresh writes (a CloudFront KeyValueStore in production, `edge-store.json` next to the
// local build) and the router reads with its clock. Flat string keys and values, as the KeyValueStore holds them.
/**
 * JSON `{"stale_after": ISO, "build_date", "next_date", "variant_dates": [...], "forecast_stale_after": ISO}` (dates
 * `YYYY-MM-DD`): until when the build's answer holds, the dates it published `unknown` variants for (the build's date
 * first, one a day), and until when its forecast holds.
 */
export const EDGE_FRESHNESS_KEY = 'freshness';
/** One key per published event id (value `1`), so the edge can answer an unknown id with the translated 404. */
export const EDGE_EVENT_KEY_PREFIX = 'e:';
/** The local build's copy of the store, in the output directory (outside `api/`, so never served). */
export const EDGE_STORE_FILE = 'edge-store.json';
/** Present-tense endpoints with an `unknown` variant the edge serves once the build is stale or from another day. */
export const UNKNOWN_VARIANT_ENDPOINTS: readonly Endpoint[] = ['latest', 'status'];

export const isUnknownVariantEndpoint = (value: string): value is Endpoint => isOneOf(UNKNOWN_VARIANT_ENDPOINTS, value);

/** Served after the last of `variant_dates`: builds have stopped for days, so it names no date (`today.date` null). */
export const BUILDS_STOPPED_VARIANT = 'stopped';

/** `api/<lang>/unknown/<date or BUILDS_STOPPED_VARIANT>/<endpoint>.json`, once the build's answer no longer holds. */
export const unknownVariantKey = (lang: Lang, date: string, endpoint: Endpoint): string =>
  API_ROOT + lang + '/unknown/' + date + '/' + endpoint + '.json';

/** The badge says today's state: like latest and status, the edge serves its `unknown` variant once the build is stale. */
export const isBadgeDocument = (name: string): name is 'badge.json' | 'badge.svg' =>
  name === 'badge.json' || name === 'badge.svg';

/** `api/<lang>/unknown/badge.json|svg`: the badge once the build's answer no longer holds (it names no date). */
export const unknownBadgeKey = (lang: Lang, name: 'badge.json' | 'badge.svg'): string =>
  API_ROOT + lang + '/unknown/' + name;

/**
 * `api/<lang>/unknown/forecast.json`: the forecast once past its own `stale_after`, its probabilities null. It names no
 * date (a forecast is about the hours after its issue), so one variant serves every later instant, like the badge's.
 */
export const expiredForecastKey = (lang: Lang): string => API_ROOT + lang + '/unknown/forecast.json';

/**
 * `api/<lang>/unknown/forecast/index.html`: the human page made from the build's documents and its expired forecast,
 * served while today's answer still holds and the forecast no longer does.
 */
export const expiredForecastPageKey = (lang: Lang): string => API_ROOT + lang + '/unknown/forecast/index.html';

/** `api/<lang>/unknown/<date>/index.html`: the human page made from the unknown variants. */
export const unknownPageKey = (lang: Lang, date: string): string =>
  API_ROOT + lang + '/unknown/' + date + '/index.html';

/** An instant given on a command line (`--now`): ISO 8601 with `Z` or an offset (without, it would be local time). */
export const ZONED_INSTANT_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The API's one timestamp format, in JSON, feeds and the calendar alike: ISO 8601 UTC to the second,
 * `YYYY-MM-DDTHH:MM:SSZ` (upstream records rarely carry more, and milliseconds of a build time are noise).
 */
export const INSTANT_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** `at` in the API's timestamp format, truncated to the whole second. */
export function formatInstant(at: Date | number | string): string {
  const ms = typeof at === 'number' ? at : typeof at === 'string' ? Date.parse(at) : at.getTime();
  if (!Number.isFinite(ms)) throw new Error(`[contract] not a time: ${String(at)}`);
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19) + 'Z';
}

/** The not-found body a host answers with when even the stored not-found document cannot be read (preview, Worker). */
export const NOT_FOUND_FALLBACK =
  '{"error":{"status":404,"code":"not_found","message":"The requested resource does not exist."},"meta":{"lang":null}}';

/**
 * Scheme and host (with a non-default port) of a URL, all that is ever shown of a configured one (redact.ts):
 * `https://user:pass@host:8443/p?token=abc` → `https://host:8443`; null for anything but an http(s) URL with a host.
 */
export function urlOrigin(raw: string): string | null {
  const u = URL.parse(raw);
  // Not even the scheme of another kind of URL: `token:abc` parses as a scheme and a path.
  if (u === null || (u.protocol !== 'http:' && u.protocol !== 'https:') || u.host === '') return null;
  return `${u.protocol}//${u.host}`;
}
