// The Cloudflare Worker: the second host of the API, running the same pure router as the CloudFront Function and the
// preview. The built dist/ is uploaded as the Worker's static assets (wrangler.json), edge-store.json among them; the
// Worker runs first on every request (`run_worker_first`), routes it, and answers from the ASSETS binding exactly as
// the CDN answers from S3. Imports only the contract and the router; scripts/build-worker.ts bundles it.
import {
  EDGE_STORE_FILE,
  NOT_FOUND_CONTENT_LANGUAGE,
  NOT_FOUND_FALLBACK,
  NOT_FOUND_KEY,
} from '../../builder/contract.ts';
import { baseHeaders, edgeContextFrom, route } from '../../builder/edge/route.ts';

export interface WorkerEnv {
  /** The static-assets binding (`assets.binding` in wrangler.json), as much of it as the Worker uses. */
  ASSETS: { fetch(request: Request): Promise<Response> };
}

/** edge-store.json is a few kilobytes (one key a published event); anything far larger is not ours. */
const MAX_STORE_BYTES = 1_048_576;
/** Request headers passed on to the asset lookup, so conditional and range requests get the assets' 304/206/416. */
const CONDITIONAL_HEADERS = ['if-none-match', 'if-modified-since', 'range', 'if-range'];
/** Validators and range headers kept from the asset's answer; every other header is the contract's. */
const ASSET_HEADERS = ['etag', 'last-modified', 'content-range', 'accept-ranges'];

/** The headers of `names` that `from` has. */
const pick = (from: Headers, names: readonly string[]): Record<string, string> =>
  Object.fromEntries(names.flatMap((n) => (from.has(n) ? [[n, from.get(n)!]] : [])));

/**
 * The store's values, read once per isolate: the assets of one deployment never change, and edge-store.json is
 * uploaded with the documents it describes, so the two can never disagree (a KV namespace, written separately and
 * eventually consistent, could point at variants a deployment does not have yet). Missing or unreadable: an empty
 * store for this request (read again on the next), the documents then served as published, as the CloudFront Function
 * does with an empty KeyValueStore.
 */
let storeCache: Readonly<Record<string, string>> | null = null;

async function readStore(env: WorkerEnv, origin: string): Promise<Readonly<Record<string, string>>> {
  if (storeCache !== null) return storeCache;
  try {
    const res = await env.ASSETS.fetch(new Request(origin + '/' + EDGE_STORE_FILE));
    // Refused unread when it says it is too big; a body without a length is capped after reading (assets have one).
    const declared = Number(res.headers.get('content-length') ?? '0');
    const text = res.ok && declared <= MAX_STORE_BYTES ? await res.text() : '';
    const raw: unknown = text.length > 0 && text.length <= MAX_STORE_BYTES ? JSON.parse(text) : null;
    if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
      const values = Object.create(null) as Record<string, string>;
      for (const [k, v] of Object.entries(raw)) if (typeof v === 'string') values[k] = v;
      // Kept for the isolate only once read: a failed read is tried again on the next request, never cached, so one
      // transient failure cannot leave an isolate serving stale documents as published for its whole life.
      return (storeCache = values);
    }
  } catch {
    // unreadable: an empty store for this request
  }
  return {};
}

/** The request target as sent: the path still percent-encoded and the raw query, as the router takes them. */
function targetOf(url: string): { origin: string; uri: string; query: string } {
  const start = url.indexOf('/', url.indexOf('://') + 3);
  const origin = start === -1 ? url : url.slice(0, start);
  const rest = start === -1 ? '/' : (url.slice(start).split('#')[0] ?? '/');
  const qi = rest.indexOf('?');
  return { origin, uri: qi === -1 ? rest : rest.slice(0, qi), query: qi === -1 ? '' : rest.slice(qi + 1) };
}

function answer(method: string, status: number, headers: Record<string, string>, body: BodyInit | null): Response {
  // No body for HEAD, 204 and 304, as at the CDN and the preview.
  return new Response(method === 'HEAD' || status === 204 || status === 304 ? null : body, { status, headers });
}

/** Answers one request at the instant `now` (epoch ms). */
export async function handleRequest(request: Request, env: WorkerEnv, now: number): Promise<Response> {
  const { origin, uri, query } = targetOf(request.url);
  const store = await readStore(env, origin);
  const result = route({ method: request.method, uri, query }, edgeContextFrom(store, uri, now));
  if (result.kind === 'response')
    return answer(request.method, result.status, result.headers, result.body === '' ? null : result.body);

  const method = request.method === 'HEAD' ? 'HEAD' : 'GET';
  const headers = pick(request.headers, CONDITIONAL_HEADERS);
  const asset = await env.ASSETS.fetch(new Request(origin + '/' + result.key, { method, headers }));
  if (asset.status === 404) {
    // As at the CDN (its custom error response): the stored not-found document, status 404.
    await asset.body?.cancel();
    const nf = await env.ASSETS.fetch(new Request(origin + '/' + NOT_FOUND_KEY));
    const body = nf.ok ? await nf.text() : NOT_FOUND_FALLBACK;
    return answer(request.method, 404, baseHeaders(NOT_FOUND_CONTENT_LANGUAGE), body);
  }
  return answer(request.method, asset.status, { ...result.headers, ...pick(asset.headers, ASSET_HEADERS) }, asset.body);
}

export default {
  fetch(request: Request, env: WorkerEnv): Promise<Response> {
    return handleRequest(request, env, Date.now());
  },
};
