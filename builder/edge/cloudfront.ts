// The CloudFront Function (runtime 2.0, viewer-request): adapts CloudFront's event and KeyValueStore to the shared
// router, so the CDN and the local preview answer every request alike. scripts/build-edge.ts bundles it (through
// cloudfront-main.ts, which binds the runtime's store) into edge/cloudfront-function.js.
// The runtime is ES 5.1 plus a few later features (const/let, arrows, template literals), with no modules, timers or
// network, and `await` only in the top-level handler: this file keeps to plain synchronous functions and loops, and
// must stay tiny (the whole bundle is capped at 10 KB). scripts/cloudfront-rules.ts checks the built bundle.
import { route, type EdgeContext } from './route.ts';

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
  for (const name in qs) {
    if (!Object.prototype.hasOwnProperty.call(qs, name)) continue;
    const entry = qs[name] as CloudFrontQueryValue;
    const values = entry.multiValue && entry.multiValue.length > 0 ? entry.multiValue : [entry];
    for (let i = 0; i < values.length; i++) parts.push(name + '=' + (values[i] as { value: string }).value);
  }
  return parts.join('&');
}

/**
 * What the viewer-request handler returns for `request` once it has read the store (`ctx`): the request rewritten to
 * its object key, or the router's own answer. Synchronous on purpose: the runtime allows `await` only in the top-level
 * `async function handler` (cloudfront-main.ts), so everything after the store reads lives here.
 */
export function answer(request: CloudFrontRequest, ctx: EdgeContext): CloudFrontRequest | CloudFrontResponse {
  const result = route({ method: request.method, uri: request.uri, query: rawQueryOf(request.querystring) }, ctx);
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
}
