// The CloudFront Function (runtime 2.0, viewer-request): adapts CloudFront's event and KeyValueStore to the shared
// router, so the CDN and the local preview answer every request alike. scripts/build-edge.ts bundles it (through
// cloudfront-main.ts, which binds the runtime's store) into edge/cloudfront-function.js.
// The runtime is ES 5.1 plus a few later features (const/let, arrows, template literals), with no modules, timers or
// network: this file keeps to plain functions and loops, and must stay tiny (the whole bundle is capped at 10 KB).
import { EDGE_EVENT_KEY_PREFIX, EDGE_FRESHNESS_KEY } from '../contract.ts';
import { eventIdOf, parseFreshness, route, type EdgeFreshness } from './route.ts';

/** The runtime's KeyValueStore handle (`cf.kvs()`), as much of it as the function uses. */
export interface EdgeKvs {
  get(key: string): Promise<string>;
  exists(key: string): Promise<boolean>;
}

/** One query parameter as CloudFront passes it: `value` is the first occurrence, `multiValue` lists all when repeated. */
export interface CloudFrontQueryValue {
  value: string;
  multiValue?: { value: string }[];
}

export interface CloudFrontRequest {
  method: string;
  uri: string;
  querystring: Record<string, CloudFrontQueryValue>;
  headers?: Record<string, { value: string }>;
  cookies?: Record<string, unknown>;
}

export interface CloudFrontEvent {
  version?: string;
  request: CloudFrontRequest;
}

export interface CloudFrontResponse {
  statusCode: number;
  statusDescription: string;
  headers: Record<string, { value: string }>;
  body?: { encoding: 'text'; data: string };
}

// Only the statuses the router can produce; CloudFront fills nothing in for us.
const STATUS_TEXT: Record<number, string> = {
  204: 'No Content',
  400: 'Bad Request',
  404: 'Not Found',
  405: 'Method Not Allowed',
  414: 'URI Too Long',
};

/**
 * Rebuilds the raw query string from CloudFront's parsed form. CloudFront keeps names and values percent-encoded as
 * the viewer sent them, so joining them back gives the router the same input the preview sees (parameter order
 * across different names is lost, which the router never depends on). A parameter without `=` arrives with an
 * empty value and is rebuilt as `name=`, which the router reads the same way.
 */
export function rawQueryOf(qs: Record<string, CloudFrontQueryValue> | undefined): string {
  const parts: string[] = [];
  if (!qs) return '';
  for (const name in qs) {
    if (!Object.prototype.hasOwnProperty.call(qs, name)) continue;
    const entry = qs[name] as CloudFrontQueryValue;
    const many = entry.multiValue;
    if (many && many.length > 0) {
      for (let i = 0; i < many.length; i++) parts.push(name + '=' + (many[i] as { value: string }).value);
    } else {
      parts.push(name + '=' + entry.value);
    }
  }
  return parts.join('&');
}

/**
 * The viewer-request handler over a store. Reads the freshness values (one key) and, for an event path, whether the
 * id exists (one more): a store that cannot be read is treated as empty, and the documents are then served as
 * published, never an error of ours.
 */
export function createHandler(kvs: EdgeKvs | null): (event: CloudFrontEvent) => Promise<CloudFrontRequest | CloudFrontResponse> {
  return async function handler(event: CloudFrontEvent): Promise<CloudFrontRequest | CloudFrontResponse> {
    const request = event.request;
    let freshness: EdgeFreshness | null = null;
    let eventKnown: boolean | null = null;
    if (kvs !== null) {
      try {
        freshness = parseFreshness(await kvs.get(EDGE_FRESHNESS_KEY));
      } catch (_e) {
        freshness = null; // no such key yet
      }
      const id = freshness === null ? null : eventIdOf(request.uri);
      if (id !== null) {
        try {
          eventKnown = await kvs.exists(EDGE_EVENT_KEY_PREFIX + id);
        } catch (_e) {
          eventKnown = null;
        }
      }
    }
    const result = route({ method: request.method, uri: request.uri, query: rawQueryOf(request.querystring) }, { now: Date.now(), freshness: freshness, eventKnown: eventKnown });
    if (result.kind === 'object') {
      // The origin and the cache see only the object key: the language, the type and the variant now live in the
      // path, so a cache policy keyed on the URI alone cannot mix them.
      request.uri = '/' + result.key;
      request.querystring = {};
      return request;
    }
    const headers: Record<string, { value: string }> = {};
    for (const name in result.headers) headers[name] = { value: result.headers[name] as string };
    const response: CloudFrontResponse = {
      statusCode: result.status,
      statusDescription: STATUS_TEXT[result.status] || 'Error',
      headers: headers,
    };
    if (result.body !== '') response.body = { encoding: 'text', data: result.body };
    return response;
  };
}
