// Entry of the CloudFront Function bundle: the viewer-request handler itself. `cloudfront` is the runtime's own module
// (its KeyValueStore); scripts/build-edge.ts keeps this import as the bundle's first line, as the runtime requires, and
// keeps this function's name. Every `await` of the function is here, in the top-level `async function handler`: the
// cloudfront-js-2.0 runtime allows `await` in async functions only and supports no async closures or arguments
// (scripts/cloudfront-rules.ts refuses a bundle that has any).
import cf from 'cloudfront';
import { EDGE_EVENT_KEY_PREFIX, EDGE_FRESHNESS_KEY } from '../contract.ts';
import { answer, type CloudFrontEvent, type CloudFrontRequest, type CloudFrontResponse } from './cloudfront.ts';
import { eventIdOf, parseFreshness, type EdgeFreshness } from './route.ts';

const kvs = cf.kvs();

/**
 * Reads the freshness values (one key) and, for an event path, whether the id exists (one more), then answers
 * synchronously. A store that cannot be read is treated as empty: the documents are then served as published, never
 * an error of ours.
 */
export async function handler(event: CloudFrontEvent): Promise<CloudFrontRequest | CloudFrontResponse> {
  const request = event.request;
  let freshness: EdgeFreshness | null;
  let eventKnown: boolean | null = null;
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
  return answer(request, { now: Date.now(), freshness: freshness, eventKnown: eventKnown });
}
