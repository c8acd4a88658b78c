// Pure: what the evidence itself says about when a record happened. An X (Twitter) post id is a snowflake
// whose top bits are the post's creation time, so a record citing a post can be checked against it.
import { formatInstant } from '../contract.ts';
import { normalizeUrl } from './events.ts';

/** X's snowflake epoch (2010-11-04T01:42:54.657Z), in ms since the Unix epoch. */
const SNOWFLAKE_EPOCH_MS = 1288834974657n;
/** A record's own time further than this from its post's time is a different instant (an observation), not the post. */
const POST_TIME_TOLERANCE_MS = 60_000;

/** The numeric id of an x.com / twitter.com status URL, or null when the URL is not one. */
export const xPostId = (url: string): string | null =>
  URL.canParse(url) ? (/^x\.com\/[^/]+\/status(?:es)?\/(\d{1,20})(?:\/|$)/.exec(normalizeUrl(url))?.[1] ?? null) : null;

/** Creation time (ms since the epoch) encoded in a snowflake id; BigInt because ids exceed 2^53. */
export const snowflakeMs = (id: string): number => Number((BigInt(id) >> 22n) + SNOWFLAKE_EPOCH_MS);

/** The ids of the X posts a record cites, in order. */
export const citedPosts = (sources: readonly { url: string }[]): string[] =>
  sources.flatMap((s) => xPostId(s.url) ?? []);

/** The first X post a record cites (its primary evidence), with the post's creation time to the whole second. */
export function citedPost(sources: readonly { url: string }[]): { id: string; at: string; ms: number } | null {
  const id = citedPosts(sources)[0];
  return id === undefined ? null : { id, at: formatInstant(snowflakeMs(id)), ms: snowflakeMs(id) };
}

export type PostTimeDisagreement = NonNullable<ReturnType<typeof timesFromPost>['disagreement']>;

/**
 * The times a record should carry given the post it cites: the post's time is the announcement; a record time
 * more than a minute away is kept as the observation (and reported with the difference in seconds), never replaced.
 */
export function timesFromPost(recordAt: string, sources: readonly { url: string }[]) {
  const post = citedPost(sources);
  const diff = post === null ? 0 : Date.parse(recordAt) - post.ms;
  if (post === null || Math.abs(diff) <= POST_TIME_TOLERANCE_MS) {
    const announced_at = post?.at ?? recordAt;
    return { announced_at, observed_at: null, time_basis: 'announcement' as const, disagreement: null };
  }
  return {
    announced_at: post.at,
    observed_at: recordAt,
    time_basis: 'observation' as const,
    disagreement: { post_id: post.id, post_at: post.at, record_at: recordAt, difference_s: Math.round(diff / 1000) },
  };
}
