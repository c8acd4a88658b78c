// Listing the bucket for the S3 sink's drift check: parallel ListObjectsV2 ranges that cover every key.
import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import type { LimitFunction } from 'p-limit';
import { bareEtag } from '../s3/conditional.ts';

/** Keys per ListObjectsV2 page (the S3 maximum) and per listing range. */
export const LIST_PAGE = 1000;

/**
 * Key → bare ETag of every object under the roots (first path segments) of `keys`, listed in parallel ranges:
 * the sorted keys are cut every `pageKeys` keys, and each range is listed from its start (StartAfter) and paged
 * until it passes the next range's start; a root's first range starts at the root and its last runs to the root's
 * end, so objects between or around the given keys are listed too and nothing under a root is missed. The S3 sink
 * passes the manifest's keys alone (the listing only has to confirm what the manifest says; a key the manifest
 * lacks is uploaded anyway), so it lists before knowing the build. S3 lists in UTF-8 byte order; keys here are ASCII
 * (assertSafeKey), where that is JavaScript's order.
 */
export async function listRanges(
  client: S3Client,
  bucket: string,
  prefix: string,
  keys: Iterable<string>,
  limit: LimitFunction,
  onRequest: () => void,
  pageKeys = LIST_PAGE,
): Promise<Map<string, string>> {
  const byRoot = new Map<string, Set<string>>();
  for (const k of keys) {
    const slash = k.indexOf('/');
    const root = prefix + (slash === -1 ? k : k.slice(0, slash + 1));
    let set = byRoot.get(root);
    if (!set) byRoot.set(root, (set = new Set()));
    set.add(prefix + k);
  }
  const ranges: { root: string; after: string | undefined; until: string | undefined }[] = [];
  for (const [root, set] of [...byRoot].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const sorted = [...set].sort();
    const starts: (string | undefined)[] = [undefined];
    for (let i = pageKeys - 1; i < sorted.length - 1; i += pageKeys) starts.push(sorted[i]);
    starts.forEach((after, i) => ranges.push({ root, after, until: starts[i + 1] }));
  }
  const listed = new Map<string, string>();
  await Promise.all(
    ranges.map(({ root, after, until }) =>
      limit(async () => {
        let token: string | undefined;
        for (;;) {
          onRequest();
          let page;
          try {
            page = await client.send(
              new ListObjectsV2Command({ Bucket: bucket, Prefix: root, MaxKeys: pageKeys, ...(token ? { ContinuationToken: token } : after !== undefined ? { StartAfter: after } : {}) }),
            );
          } catch (err) {
            throw Object.assign(err as object, { listPrefix: root });
          }
          let passed = false;
          for (const o of page.Contents ?? []) {
            if (o.Key === undefined) continue;
            if (until !== undefined && o.Key > until) {
              passed = true; // the next range lists from here
              break;
            }
            listed.set(o.Key, bareEtag(o.ETag));
            if (o.Key === until) {
              passed = true; // this range is complete: no need to ask for a page beyond it
              break;
            }
          }
          token = page.IsTruncated && !passed ? page.NextContinuationToken : undefined;
          if (!token) return;
        }
      }),
    ),
  );
  return listed;
}
