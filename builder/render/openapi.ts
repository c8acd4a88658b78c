// The OpenAPI 3.1 document, generated from the same zod schemas the build validates against. CI lints it with
// @redocly/cli (recommended) and @stoplight/spectral-cli (spectral:oas): `npm run lint:openapi`.
import { z } from 'zod';
import {
  CACHE_CONTROL,
  EVENT_ID_PATTERN_SOURCE,
  EVENT_TYPES,
  EXPOSE_HEADERS,
  FOLLOW_DOCUMENTS,
  type FollowDocumentName,
  HISTORY_PAGE_SIZE,
  LANGS,
  LICENSE_KEY,
} from '../contract.ts';
import { API_VERSION, DOCUMENT_SCHEMAS, type DocumentSchemaName } from './schemas.ts';

export interface OpenApiOptions {
  /** The public base URL (`servers[0].url`), e.g. https://api.example.org; default `/`, the origin serving the document. */
  serverUrl?: string;
  /** Where to reach the maintainers (`info.contact.url`), e.g. the repository's issues page; omitted when unset. */
  contactUrl?: string;
}

export const DEFAULT_SERVER_URL = '/';

const ref = (kind: 'schemas' | 'headers' | 'responses' | 'parameters', id: string) => ({
  $ref: `#/components/${kind}/${id}`,
});

/** A copy of a JSON Schema without `additionalProperties: false`: published schemas accept fields added later. */
const openSchema = (schema: unknown): Record<string, unknown> =>
  JSON.parse(JSON.stringify(schema), (k, v: unknown) => (k === 'additionalProperties' && v === false ? undefined : v));

/** The open JSON Schema of a document (api/schemas/<name>.json); the build's own check stays strict. */
export const documentSchema = (name: DocumentSchemaName) =>
  openSchema(z.toJSONSchema(DOCUMENT_SCHEMAS[name], { target: 'draft-2020-12', io: 'output' }));

const header = (description: string, schema: Record<string, unknown> = { type: 'string' }) => ({ description, schema });

const HEADERS = {
  ContentLanguage: header(
    'The language of the body (`en, de, ko, ja, zh` for the language-independent not-found document).',
  ),
  CacheControl: header('Every answer may be cached for 30 seconds.', { type: 'string', const: CACHE_CONTROL }),
  AllowOrigin: header('Open to any origin.', { type: 'string', const: '*' }),
  ExposeHeaders: header('Response headers a browser script may read.', { type: 'string', const: EXPOSE_HEADERS }),
  ETag: header('Changes only when the bytes change (stable documents keep it until their content changes).'),
  LastModified: header('When the object was last written.'),
  Allow: header('The methods the API answers.', { type: 'string', const: 'GET, HEAD, OPTIONS' }),
  AllowMethods: header('Methods allowed cross-origin.', { type: 'string', const: 'GET, HEAD, OPTIONS' }),
  AllowHeaders: header('Request headers allowed cross-origin.', { type: 'string', const: '*' }),
  MaxAge: header('How long a preflight answer may be cached, in seconds.', { type: 'string', const: '86400' }),
};

const common = {
  'Content-Language': ref('headers', 'ContentLanguage'),
  'Cache-Control': ref('headers', 'CacheControl'),
  'Access-Control-Allow-Origin': ref('headers', 'AllowOrigin'),
  'Access-Control-Expose-Headers': ref('headers', 'ExposeHeaders'),
};
const okHeaders = { ...common, ETag: ref('headers', 'ETag'), 'Last-Modified': ref('headers', 'LastModified') };

const errorResponse = (description: string, headers: Record<string, unknown> = common) => ({
  description,
  headers,
  content: { 'application/json': { schema: ref('schemas', 'Error') } },
});
const RESPONSES = {
  BadRequest: errorResponse(
    'Unsupported `lang`, unknown `type`, a repeated parameter, malformed percent-encoding, too many parameters or an invalid path (codes `unsupported_lang`, `unknown_type`, `ambiguous_parameter`, `malformed_query`, `too_many_parameters`, `invalid_path`). `lang` errors are in English, the others in the selected language.',
  ),
  NotFound: errorResponse(
    'No such resource (code `not_found`, also for an event id that is malformed or unknown). An unknown but well-formed path is answered by the CDN with one language-independent document whose `messages` holds every language.',
  ),
  MethodNotAllowed: errorResponse(
    'Any method other than GET, HEAD and OPTIONS (code `method_not_allowed`, in the selected language).',
    { ...common, Allow: ref('headers', 'Allow') },
  ),
  UriTooLong: errorResponse('A path over 512 bytes or a query string over 1024 bytes (code `request_too_long`).'),
};
const errors = {
  '400': ref('responses', 'BadRequest'),
  '404': ref('responses', 'NotFound'),
  '405': ref('responses', 'MethodNotAllowed'),
  '414': ref('responses', 'UriTooLong'),
};

/** A parameter: in the query (optional, at most once) or in the path (required). */
const param = (name: string, where: 'query' | 'path', description: string, schema: Record<string, unknown>) => ({
  name,
  in: where,
  required: where === 'path',
  description,
  schema,
});

interface PathSpec {
  id: string;
  tag: string;
  summary: string;
  description: string;
  /** The body of a 200: a component schema id, or an inline media type map. */
  body: string | Record<string, unknown>;
  params?: ReturnType<typeof param>[];
}

function operations({ params = [], ...p }: PathSpec): Record<string, unknown> {
  const parameters = [
    // The contract's documents are language-independent: no `lang` parameter (the edge still validates one).
    ...(p.tag === 'Contract' ? [] : [ref('parameters', 'lang')]),
    ...params.filter((x) => x.in === 'query'),
  ];
  const pathParams = params.filter((x) => x.in === 'path');
  const content = typeof p.body === 'string' ? { 'application/json': { schema: ref('schemas', p.body) } } : p.body;
  const op = (verb: string, rest: object) => ({
    operationId: verb + p.id[0]!.toUpperCase() + p.id.slice(1),
    tags: [p.tag],
    ...rest,
  });
  return {
    ...(pathParams.length > 0 ? { parameters: pathParams } : {}),
    get: op('get', {
      summary: p.summary,
      description: p.description,
      parameters,
      responses: { '200': { description: 'OK', headers: okHeaders, content }, ...errors },
    }),
    head: op('head', {
      summary: `Headers of: ${p.summary}`,
      description: 'As GET, without a body.',
      parameters,
      responses: { '200': { description: 'OK, no body.', headers: okHeaders }, ...errors },
    }),
    options: op('options', {
      summary: 'CORS preflight',
      description: 'Answered 204 whatever the path, query and request headers.',
      responses: {
        '204': {
          description: 'Preflight allowed.',
          headers: {
            'Cache-Control': ref('headers', 'CacheControl'),
            'Access-Control-Allow-Origin': ref('headers', 'AllowOrigin'),
            'Access-Control-Allow-Methods': ref('headers', 'AllowMethods'),
            'Access-Control-Allow-Headers': ref('headers', 'AllowHeaders'),
            'Access-Control-Max-Age': ref('headers', 'MaxAge'),
          },
        },
        '405': ref('responses', 'MethodNotAllowed'),
        '414': ref('responses', 'UriTooLong'),
      },
    }),
  };
}

// The follow-it endpoints have the same `lang` parameter, errors and contract headers, each its own media type.
const mediaType = (name: FollowDocumentName) => FOLLOW_DOCUMENTS[name].split(';')[0]!;
const body = (name: FollowDocumentName, schema: Record<string, unknown>) => ({ [mediaType(name)]: { schema } });

const BADGE_SCHEMA = {
  type: 'object',
  description: 'The shields.io endpoint badge schema (https://shields.io/badges/endpoint-badge).',
  required: ['schemaVersion', 'label', 'message', 'color'],
  properties: {
    schemaVersion: { const: 1 },
    label: { type: 'string' },
    message: { type: 'string' },
    color: { type: 'string' },
  },
};

const PATHS: Record<string, PathSpec> = {
  '/api': {
    id: 'index',
    tag: 'Contract',
    summary: 'The index',
    description: 'Languages, types, endpoints and where the contract lives. Language-independent and stable.',
    body: 'Index',
  },
  '/api/latest': {
    id: 'latest',
    tag: 'Today',
    summary: "Today's answer and the latest resets",
    description:
      'Whether a global reset happened today (`reset`: true, false, or null when unknown), the latest recorded and the latest verified global reset. Live: carries `meta.generated_at` and `meta.stale_after`.',
    body: 'Latest',
  },
  '/api/status': {
    id: 'status',
    tag: 'Today',
    summary: "Today's state with its sources",
    description:
      "Today's state, the 10 most recent events, the latest check of every source and the official upstream status. Live.",
    body: 'Status',
  },
  '/api/history': {
    id: 'history',
    tag: 'History',
    summary: 'Recorded events, newest first',
    description: `Without \`page\`: the newest recorded events (a History: ${HISTORY_PAGE_SIZE} to ${2 * HISTORY_PAGE_SIZE - 1} of them, or every event while fewer than ${2 * HISTORY_PAGE_SIZE} are recorded), \`count\` (all recorded events) and \`next\`, the path of the next older page. With \`page=N\`: archived page N (a HistoryPage), events (N-1)*${HISTORY_PAGE_SIZE}+1 to N*${HISTORY_PAGE_SIZE} counted from the oldest, newest first, with its own \`next\`; an archived page is never rewritten when a newer event is added. Following \`next\` from the newest document to page 1 reads every event exactly once. Coverage is partial, see \`coverage\`. Stable: carries \`meta.updated_at\`, derived from its events.`,
    body: { 'application/json': { schema: { oneOf: [ref('schemas', 'History'), ref('schemas', 'HistoryPage')] } } },
    params: [
      param(
        'type',
        'query',
        'Only events of this type (case-insensitive, at most once). Anything else is a 400 naming the valid types.',
        { type: 'string', enum: [...EVENT_TYPES] },
      ),
      param(
        'page',
        'query',
        `An archived page, from 1 (the oldest events) to the newest document's \`archived_pages\`; at most once (twice is a 400). A value that is not a positive integer without leading zeros, or a page not archived (yet), is a 404 with code \`not_found\`.`,
        { type: 'integer', minimum: 1, maximum: 9999999 },
      ),
    ],
  },
  '/api/events/{id}': {
    id: 'event',
    tag: 'History',
    summary: 'One event',
    description: 'One event. A malformed or unknown id is a 404 with code `not_found`. Stable.',
    body: 'EventResponse',
    params: [param('id', 'path', 'The event id.', { type: 'string', pattern: EVENT_ID_PATTERN_SOURCE })],
  },
  '/api/forecast': {
    id: 'forecast',
    tag: 'Forecast',
    summary: 'Chance of a global reset within 24h and 48h',
    description:
      'Probabilities (4 decimals; null when the model has too little data, never 0), base rates, sample size and a translated explanation. Live, with its own `meta.stale_after`, an hour after `issued_at`: past it the CDN serves the expired forecast (every probability and base rate null, `explanation` saying since when it has expired and why), and a client treats the forecast as no probability.',
    body: 'Forecast',
  },
  '/api/accuracy': {
    id: 'accuracy',
    tag: 'Forecast',
    summary: 'How good past forecasts were',
    description: 'Brier scores of the as-issued forecasts of the last 30 days next to climatology. Live.',
    body: 'Accuracy',
  },
  '/api/signals': {
    id: 'signals',
    tag: 'Today',
    summary: 'Public signals awaiting review',
    description: 'Feed items and Codex incidents that may point at a reset; never counted as resets. Live.',
    body: 'Signals',
  },
  '/api/openapi.json': {
    id: 'openApi',
    tag: 'Contract',
    summary: 'This OpenAPI document',
    description: 'OpenAPI 3.1, generated from the schemas the build validates against. Stable.',
    body: { 'application/json': { schema: { type: 'object' } } },
  },
  '/api/schemas/{name}.json': {
    id: 'schema',
    tag: 'Contract',
    summary: 'JSON Schema of one document',
    description: 'JSON Schema 2020-12 of one document. Open: it accepts fields added later. Stable.',
    body: { 'application/json': { schema: { type: 'object' } } },
    params: [param('name', 'path', 'The document name.', { type: 'string', enum: Object.keys(DOCUMENT_SCHEMAS) })],
  },
  '/api/feed.atom': {
    id: 'feedAtom',
    tag: 'Follow',
    summary: 'Atom feed of recorded and announced resets',
    description:
      "Atom (RFC 4287): the announced reset (if any) and the 50 most recent global resets and banked grants, newest first. Entry ids are tag URIs, the same in every language. Stable: `updated` is the newest entry's time.",
    body: body('feed.atom', { type: 'string', description: 'An Atom document.' }),
  },
  '/api/feed.json': {
    id: 'feedJson',
    tag: 'Follow',
    summary: 'JSON Feed 1.1 of recorded and announced resets',
    description:
      'JSON Feed 1.1 (https://www.jsonfeed.org/version/1.1/) with the same items and ids as the Atom feed. Stable.',
    body: body('feed.json', {
      type: 'object',
      required: ['version', 'title', 'items'],
      properties: {
        version: { const: 'https://jsonfeed.org/version/1.1' },
        title: { type: 'string' },
        language: { type: 'string' },
        items: {
          type: 'array',
          items: {
            type: 'object',
            required: ['id'],
            properties: {
              id: { type: 'string' },
              url: { type: 'string' },
              title: { type: 'string' },
              content_html: { type: 'string' },
            },
          },
        },
      },
    }),
  },
  '/api/calendar.ics': {
    id: 'calendar',
    tag: 'Follow',
    summary: 'iCalendar of recorded resets and announced resets with a time',
    description:
      'iCalendar (RFC 5545): one event per recorded reset and per announced reset with `scheduled_for`; UIDs are `<id>@reset-status-api`, the same in every language, and an announcement keeps its UID once its reset is recorded. Stable.',
    body: body('calendar.ics', { type: 'string', description: 'An iCalendar document.' }),
  },
  '/api/badge.json': {
    id: 'badgeJson',
    tag: 'Follow',
    summary: "Today's state as a shields.io endpoint badge",
    description: "Today's state in the language. Live, like /api/latest.",
    body: body('badge.json', BADGE_SCHEMA),
  },
  '/api/badge.svg': {
    id: 'badgeSvg',
    tag: 'Follow',
    summary: "Today's state as an SVG badge",
    description: 'The same badge as a self-contained SVG. Live.',
    body: body('badge.svg', { type: 'string', description: 'An SVG image.' }),
  },
  [`/${LICENSE_KEY}`]: {
    id: 'license',
    tag: 'Contract',
    summary: 'License texts of the third-party data',
    description: 'The full license text of every archive the data is derived from (`meta.license_url`). Stable.',
    body: { 'text/plain': { schema: { type: 'string' } } },
  },
};

/** The paragraphs of `info.description`. */
const DESCRIPTION = [
  'Has OpenAI reset Codex usage limits for everyone today, and will it happen soon? Static JSON rebuilt every 15 minutes; every response is cacheable for 30 seconds and open to any origin.',
  '**Unknown fields.** The published schemas accept added fields, and a client must ignore fields it does not know: new fields are added without a new `api_version`.',
  "**Live and stable documents.** Documents about the present (latest, status, forecast, signals, accuracy) carry `meta.generated_at` and `meta.stale_after` (30 minutes after the last successful reset-source check, never past the next UTC midnight; a day with a recorded reset holds until midnight; past it the CDN answers `unknown`, with `today.date` the reader's UTC date for 3 dates after the last build and `null` after that, when builds have stopped: it names no day rather than a wrong one; `today.explanation` says why, from the same facts `/api/status` shows). The forecast has its own `meta.stale_after`, an hour after it was issued (`issued_at`), whatever today's answer; past it the CDN answers `/api/forecast` with the expired forecast: no probability, and an `explanation` saying since when and why. Every other document (events, history, the index, schemas, this document) carries no build time: events and history carry `meta.updated_at`, the newest time recorded among their events, so their bytes and ETag change only when their content does.",
  '**Errors** are `{"error": {"status", "code", "message", "valid_values"?, "messages"?}, "meta": {"lang"}}`; `code` is one of the `Error` schema\'s enum.',
].join('\n\n');

export function buildOpenApi(opts: OpenApiOptions = {}): Record<string, unknown> {
  // Every response schema carries a `.meta({ id })`, so each becomes one named component.
  const { schemas } = z.toJSONSchema(z.globalRegistry, {
    target: 'draft-2020-12',
    uri: (id) => `#/components/schemas/${id}`,
  });
  for (const s of Object.values(schemas)) {
    delete s.$schema;
    delete s.$id;
  }
  const lang = param(
    'lang',
    'query',
    'Response language (case-insensitive, at most once). Default en; never chosen from Accept-Language. Anything else is a 400.',
    { type: 'string', enum: [...LANGS], default: 'en' },
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'Reset Status API',
      version: API_VERSION,
      description: DESCRIPTION,
      contact: {
        name: 'Reset Status API maintainers',
        ...(opts.contactUrl === undefined ? {} : { url: opts.contactUrl }),
      },
      license: { name: 'MIT', url: 'https://opensource.org/license/mit' },
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [
      {
        url: opts.serverUrl ?? DEFAULT_SERVER_URL,
        description: 'The public API (configured at build time with RESET_PUBLIC_BASE_URL).',
      },
    ],
    security: [],
    tags: [
      { name: 'Today', description: "Today's state and what feeds it." },
      { name: 'History', description: 'Recorded events.' },
      { name: 'Forecast', description: 'Forecasts and their accuracy.' },
      { name: 'Follow', description: 'Feeds, a calendar and a badge to follow resets without polling.' },
      { name: 'Contract', description: 'The index, the OpenAPI document, the JSON Schemas and the license texts.' },
    ],
    paths: Object.fromEntries(Object.entries(PATHS).map(([path, p]) => [path, operations(p)])),
    components: { schemas: openSchema(schemas), headers: HEADERS, responses: RESPONSES, parameters: { lang } },
  };
}
