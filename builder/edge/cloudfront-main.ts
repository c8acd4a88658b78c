// The CloudFront Function (runtime 2.0, viewer-request): adapts CloudFront's event and KeyValueStore to the shared
// router, so the CDN and the local preview answer every request alike. scripts/build-edge.ts bundles it into
// edge/cloudfront-function.js, keeping the `cloudfront` import (the runtime's own module) as the bundle's first line and
// this handler's name, as the runtime requires. The runtime is ES 5.1 plus a few later features, with no modules,
// timers or network, and `await` only in the top-level `async function handler` (no async closures or arguments):
// this file keeps to plain functions and loops, and the bundle must stay under 10 KB (scripts/cloudfront-rules.ts).
import cf from 'cloudfront';
import { EDGE_EVENT_KEY_PREFIX, EDGE_FRESHNESS_KEY } from '../contract.ts';
import { eventIdOf, parseFreshness, route } from './route.ts';

interface CloudFrontRequest {
  method: string;
  uri: string;
  /** `value` is the first occurrence, `multiValue` lists all when repeated; both still percent-encoded. */
  querystring: Record<string, { value: string; multiValue?: { value: string }[] }>;
}

// Only the statuses the router can produce; CloudFront fills nothing in for us.
const STATUS_TEXT: Record<number, string> = {
  204: 'No Content',
  400: 'Bad Request',
  404: 'Not Found',
  405: 'Method Not Allowed',
  414: 'URI Too Long',
};

const kvs = cf.kvs();

/**
 * Reads the freshness values (one key) and, for an event path, whether the id exists (one more), then routes. A store
 * that cannot be read is treated as empty: the documents are then served as published, never an error of ours.
 */
export async function handler(event: { request: CloudFrontRequest }) {
  const request = event.request;
  let freshness = null;
  let eventKnown = null;
  try {
    freshness = parseFreshness(await kvs.get(EDGE_FRESHNESS_KEY));
    const id = freshness === null ? null : eventIdOf(request.uri);
    if (id !== null) eventKnown = await kvs.exists(EDGE_EVENT_KEY_PREFIX + id);
  } catch (_e) {
    // no such key yet, or the store cannot be read
  }
  // The raw query string again: joining CloudFront's parsed names and values gives the router the input the preview
  // sees (the order across different names is lost, which the router never depends on; `name` arrives as `name=`).
  const parts: string[] = [];
  for (const name in request.querystring) {
    const entry = request.querystring[name]!;
    const values = entry.multiValue && entry.multiValue.length > 0 ? entry.multiValue : [entry];
    for (let i = 0; i < values.length; i++) parts.push(name + '=' + values[i]!.value);
  }
  const ctx = { now: Date.now(), freshness: freshness, eventKnown: eventKnown };
  const result = route({ method: request.method, uri: request.uri, query: parts.join('&') }, ctx);
  if (result.kind === 'object') {
    // The origin and the cache see only the object key: the language, the type and the variant now live in the
    // path, so a cache policy keyed on the URI alone cannot mix them.
    request.uri = '/' + result.key;
    request.querystring = {};
    return request;
  }
  const headers: Record<string, { value: string }> = {};
  for (const name in result.headers) headers[name] = { value: result.headers[name]! };
  const response: Record<string, unknown> = { statusCode: result.status, headers: headers };
  response.statusDescription = STATUS_TEXT[result.status];
  if (result.body !== '') response.body = { encoding: 'text', data: result.body };
  return response;
}
