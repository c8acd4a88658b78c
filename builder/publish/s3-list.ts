// Listing the bucket for the S3 sink: every key under some prefixes with its ETag, page by page.
import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { bareEtag } from '../s3/conditional.ts';

/** Keys per ListObjectsV2 page: the S3 maximum. */
const LIST_PAGE = 1000;

/**
 * The prefixes to list for `keys`: their first path segments (`api/`), so a listing covers every object of ours and
 * what lies beside them, but not the rest of the bucket (state, years of backups).
 */
export function rootsOf(keys: Iterable<string>): string[] {
  const roots = new Set<string>();
  for (const k of keys) {
    const slash = k.indexOf('/');
    roots.add(slash === -1 ? k : k.slice(0, slash + 1));
  }
  return [...roots].sort();
}

/** Key → bare ETag of every object under each of `prefixes` (one request per `pageKeys` keys); `onRequest` counts them. */
export async function listPrefixes(
  client: S3Client,
  bucket: string,
  prefixes: readonly string[],
  onRequest: () => void,
  pageKeys = LIST_PAGE,
): Promise<Map<string, string>> {
  const listed = new Map<string, string>();
  for (const prefix of prefixes) {
    let token: string | undefined;
    do {
      onRequest();
      let page;
      try {
        page = await client.send(
          new ListObjectsV2Command({
            Bucket: bucket,
            Prefix: prefix,
            MaxKeys: pageKeys,
            ...(token ? { ContinuationToken: token } : {}),
          }),
        );
      } catch (err) {
        throw Object.assign(err as object, { listPrefix: prefix });
      }
      for (const o of page.Contents ?? []) if (o.Key !== undefined) listed.set(o.Key, bareEtag(o.ETag));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }
  return listed;
}
