// Pure: which official posts the service reads itself (X's oEmbed endpoint), what it remembers of each read, and which
// global resets that makes verified. Verified means the service checked the evidence, not that a source says so: the
// post exists, its author is on the reviewed list of official accounts (data/official-accounts.json), its words are
// the words the sources quote, its time falls on the event's UTC date, and at least two independent sources call it a
// global reset with none calling it anything else and no review decision on it (model/agreement.ts).
import { formatInstant } from '../contract.ts';
import type { PostReadResult } from './inputs.ts';
import { citedPost, snowflakeMs } from './evidence.ts';
import { DAY_MS, eventDate, eventMs, utcDate } from './events.ts';
import { countsAsGlobal } from './reach.ts';
import { MAX_POST_READS, type Event, type PostRead, type SourceLabel, type Verification } from './schemas.ts';

/** Posts one run reads at most: today's candidates first, then the history, newest first, so it fills in over runs. */
export const MAX_POST_READS_PER_RUN = 6;
/** After a read that did not answer (429, 403, time-out), the next try waits this long, doubling, up to a day. */
export const READ_RETRY_BASE_MS = 15 * 60 * 1000;
export const READ_RETRY_MAX_MS = DAY_MS;

/** A read that X answered for good: the post exists (`ok`) or does not (`not_found`); others are tried again. */
const isFinal = (r: Pick<PostRead, 'outcome'>): boolean => r.outcome === 'ok' || r.outcome === 'not_found';

/** The events worth reading a post for: global resets two sources agree on, with an X post, not verified by a person. */
const candidate = (e: Event): boolean =>
  countsAsGlobal(e) && e.agreement === 'agreed' && e.status !== 'verified' && citedPost(e.sources) !== null;

/**
 * The posts to read this run, at most MAX_POST_READS_PER_RUN: a candidate whose post has no final read and is not
 * waiting out a back-off; today's (UTC) first, then newest first.
 */
export function planPostReads(events: readonly Event[], reads: readonly PostRead[], asOf: Date) {
  const known = new Map(reads.map((r) => [r.post_id, r]));
  const today = utcDate(asOf);
  const due = events.filter((e) => {
    if (!candidate(e) || eventMs(e) > asOf.getTime()) return false;
    const read = known.get(citedPost(e.sources)!.id);
    return (
      read === undefined ||
      (!isFinal(read) && (read.next_try_at === null || Date.parse(read.next_try_at) <= asOf.getTime()))
    );
  });
  const rank = (e: Event) => (eventDate(e) === today ? 0 : 1);
  due.sort((a, b) => rank(a) - rank(b) || eventMs(b) - eventMs(a) || a.id.localeCompare(b.id));
  return [...new Set(due.map((e) => citedPost(e.sources)!.id))]
    .slice(0, MAX_POST_READS_PER_RUN)
    .map((post_id) => ({ post_id, url: `https://x.com/i/status/${post_id}` }));
}

/**
 * The remembered reads after this run's: a final answer replaces what was there; a failed one counts its attempts and
 * waits READ_RETRY_BASE_MS · 2^(attempts−1) (at most READ_RETRY_MAX_MS, at least what Retry-After asked). At most
 * MAX_POST_READS are kept, the newest reads first.
 */
export function applyPostReads(previous: readonly PostRead[], result: PostReadResult | null, asOf: Date): PostRead[] {
  const byPost = new Map(previous.map((r) => [r.post_id, r]));
  const retryAfterMs = Number(result?.check.detail.params.retry_after_s ?? 0) * 1000;
  for (const r of result?.reads ?? []) {
    const before = byPost.get(r.post_id);
    if (isFinal(r)) byPost.set(r.post_id, { ...r, attempts: 0, next_try_at: null });
    // A post read well once is not unread by a later failure (the plan never asks again, but state may be old).
    else if (before === undefined || !isFinal(before)) {
      const attempts = (before?.attempts ?? 0) + 1;
      const wait = Math.max(READ_RETRY_BASE_MS * 2 ** Math.min(attempts - 1, 20), retryAfterMs);
      const next_try_at = formatInstant(asOf.getTime() + Math.min(wait, READ_RETRY_MAX_MS));
      byPost.set(r.post_id, { ...r, attempts, next_try_at });
    }
  }
  return [...byPost.values()]
    .sort((a, b) => Date.parse(b.read_at) - Date.parse(a.read_at) || a.post_id.localeCompare(b.post_id))
    .slice(0, MAX_POST_READS);
}

/** A text as compared: links, markup left-overs, whitespace and case aside (and a cut quote's trailing ellipsis). */
export function comparable(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/https?:\/\/\S+/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/(?:…|\.\.\.)\s*$/u, '')
    .replace(/\s+/gu, ' ')
    .trim()
    .toLowerCase();
}

/** A quote shorter than this (compared) proves nothing about which post it is from. */
const MIN_QUOTE_CHARS = 15;

/** A quote agrees with the post when one is the start of the other (quotes are often cut at a length). */
export const quoteAgrees = (post: string, quote: string): boolean => {
  const [p, q] = [comparable(post), comparable(quote)];
  return Math.min(p.length, q.length) >= MIN_QUOTE_CHARS && (p.startsWith(q) || q.startsWith(p));
};

/** Every source's quotes, by the post they quote: the records citing it (evidence_text) and codex-reset.com's `text`. */
function quotesByPost(records: readonly Event[], labels: readonly SourceLabel[]) {
  const quotes = new Map<string, { origin: Event['origin']; quote: string }[]>();
  const add = (post: string | undefined, origin: Event['origin'], quote: string) => {
    if (post === undefined || quote.trim() === '') return;
    const list = quotes.get(post) ?? [];
    // A handful per post (one per source); more is a source repeating itself.
    if (list.length < 20) quotes.set(post, [...list, { origin, quote }]);
  };
  for (const r of records) add(citedPost(r.sources)?.id, r.origin, r.evidence_text);
  for (const l of labels) add(l.post_id ?? undefined, 'reset_timeline', l.quote);
  return quotes;
}

/**
 * The events with `verification` on every global reset: `verified` (and `status: verified`, keeping its id) when every
 * rule holds, else `not_verified` with the first rule that failed. A maintainer's verified record is left as it is.
 */
export function verifyEvents(
  events: readonly Event[],
  ctx: {
    reads: readonly PostRead[];
    /** The reviewed official handles, lower-cased. */
    official: ReadonlySet<string>;
    records: readonly Event[];
    labels: readonly SourceLabel[];
    /** False when automatic verification is off (no post reader configured). */
    enabled: boolean;
    asOf: Date;
  },
): Event[] {
  const quoted = quotesByPost(ctx.records, ctx.labels);
  const reads = new Map(
    ctx.reads.filter((r) => Date.parse(r.read_at) <= ctx.asOf.getTime()).map((r) => [r.post_id, r] as const),
  );
  return events.map((e) => {
    if (!countsAsGlobal(e) || (e.status === 'verified' && e.verification === undefined)) return e;
    const post = citedPost(e.sources);
    const read = post === null ? undefined : reads.get(post.id);
    const readers = (e.recorded_by ?? []).filter((r) => r.reads_as === 'global_reset').map((r) => r.origin);
    const sources = [...new Set(readers)].sort();
    const quotes = post === null ? [] : (quoted.get(post.id) ?? []);
    const v = (reason: Verification['reason'], quoted_by: Event['origin'][] = []): Verification => ({
      state: reason === null ? 'verified' : 'not_verified',
      reason,
      post_id: post?.id ?? null,
      author: read?.outcome === 'ok' ? read.author : null,
      read_at: read?.read_at ?? null,
      sources,
      quoted_by,
    });
    const verification = ((): Verification => {
      if (e.agreement === 'disputed') return v('disputed');
      if (e.agreement === 'reviewed') return v('sources_disagreed');
      if (e.agreement !== 'agreed') return v('single_source');
      if (post === null) return v('no_post');
      if (read === undefined) return v(ctx.enabled ? 'not_read' : 'verification_off');
      if (read.outcome === 'not_found') return v('post_not_found');
      if (read.outcome !== 'ok') return v('post_unreadable');
      if (read.author === null || !ctx.official.has(read.author)) return v('author_not_official');
      // The post's words must be words a source quotes: a quote that matches names its source. A source's own
      // paraphrase (codex-reset.com words some archive records its own way) is not a quote and matches nothing.
      const matching = quotes.filter((q) => quoteAgrees(read.text, q.quote));
      const quoted_by = [...new Set((matching.length > 0 ? matching : quotes).map((q) => q.origin))].sort();
      if (matching.length === 0) return v('text_differs', quoted_by);
      if (utcDate(new Date(snowflakeMs(post.id))) !== eventDate(e)) return v('date_differs', quoted_by);
      return v(null, quoted_by);
    })();
    return { ...e, ...(verification.state === 'verified' ? { status: 'verified' as const } : {}), verification };
  });
}
