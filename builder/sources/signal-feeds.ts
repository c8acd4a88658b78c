// Source 3: public signal feeds (RSS 2.0, Atom 1.0, JSON Feed 1.x). Items that look like reset news become
// signals awaiting review; nothing here ever becomes an event without a human decision in data/reviews.
import { formatInstant } from '../contract.ts';
import { z } from 'zod';
import type { SourceResult } from '../model/inputs.ts';
import { checkSize, FEED_BUDGET, parseJsonWithin, schemaMismatch, type ParseBudget } from './budget.ts';
import { parseXmlFeed, type RawFeedItem } from './feed-xml.ts';
import { readSource, type Fetcher, type SourceConfig } from './fetcher.ts';
import { readInstant } from './instant.ts';
import {
  cleanText,
  cleanUrl,
  count,
  judgeInstant,
  readDetail,
  sha256Hex,
  TEXT_LIMITS,
  type RejectCounts,
  type RejectReason,
} from './sanitize.ts';

export const MAX_FEED_ITEMS = 200;

/** What the extractor keeps of one item, after cleaning; validated before it becomes a signal. */
const FeedItemSchema = z.object({
  id: z.string().min(1).max(2000),
  title: z.string().max(TEXT_LIMITS.title),
  link: z.url({ protocol: /^https?$/ }).nullable(),
  published_at: z.iso.datetime().nullable(),
  excerpt: z.string().max(TEXT_LIMITS.excerpt),
});
type FeedItem = z.infer<typeof FeedItemSchema>;

type RawFeed = { format: 'rss' | 'atom' | 'json'; title: string; items: readonly RawFeedItem[]; itemsOverCap: number };

// An item is reset news when its title or text says "reset" (reset, resets, resetted, resetting; so also "reset
// limits", "limits reset") AND Codex is the context: the item mentions "codex", or the feed itself is about Codex
// (its title mentions it, as a subreddit feed's does). English only. "usage limits" alone does not count: on a
// Codex forum that is mostly complaints, and every match costs a human review.
const RESET_WORD = /\b(?:reset|resets|resetted|resetting)\b/i;
const CODEX_WORD = /\bcodex\b/i;

export function isResetNews(item: Pick<FeedItem, 'title' | 'excerpt'>, feedTitle = ''): boolean {
  const text = `${item.title} ${item.excerpt}`;
  return RESET_WORD.test(text) && (CODEX_WORD.test(text) || CODEX_WORD.test(feedTitle));
}

/** One raw item → a cleaned, validated item, or the reason it is refused. */
function cleanItem(raw: RawFeedItem, asOf: Date): FeedItem | RejectReason {
  // Feeds are written by hand and by every kind of software: a date without a zone is read as UTC (docs/sources.md).
  const read = readInstant(raw.date, 'utc');
  const published_at = read.ok ? read.iso : null;
  const verdict = published_at === null ? 'ok' : judgeInstant(published_at, asOf);
  if (verdict !== 'ok') return verdict;
  const title = cleanText(raw.title, TEXT_LIMITS.title);
  const excerpt = cleanText(raw.excerpt, TEXT_LIMITS.excerpt);
  if (title === '' && excerpt === '') return 'empty_text';
  const link = cleanUrl(raw.link);
  const id = cleanText(raw.id, TEXT_LIMITS.id) || link || `${title}|${published_at ?? ''}`;
  const parsed = FeedItemSchema.safeParse({ id: id.slice(0, 2000), title, link, published_at, excerpt });
  return parsed.success ? parsed.data : 'invalid_record';
}

/** A feed's raw items → cleaned, validated items; what fails the sanity rules is counted per reason. */
function collect(feed: RawFeed, asOf: Date) {
  const rejected: RejectCounts = {};
  if (feed.itemsOverCap > 0) count(rejected, 'over_item_cap', feed.itemsOverCap);
  const items = feed.items.flatMap((raw) => {
    const item = cleanItem(raw, asOf);
    if (typeof item === 'string') count(rejected, item);
    // A link that is not http(s) with a host is dropped (and counted); the item itself stays a signal without a link.
    else if (raw.link.trim() !== '' && item.link === null) count(rejected, 'bad_url');
    return typeof item === 'string' ? [] : [item];
  });
  const title = cleanText(feed.title, TEXT_LIMITS.title);
  return { ok: true, feed: { format: feed.format, title, items }, rejected } as const;
}

const JsonFeedItemSchema = z.object({
  id: z.union([z.string(), z.number()]),
  url: z.string().optional(),
  title: z.string().optional(),
  content_html: z.string().optional(),
  content_text: z.string().optional(),
  summary: z.string().optional(),
  date_published: z.string().optional(),
  date_modified: z.string().optional(),
});
/** Items are validated one by one after the item cap: a flood of invalid items costs nothing to refuse. */
const JsonFeedEnvelopeSchema = z.object({
  version: z.string().regex(/^https:\/\/jsonfeed\.org\/version\/1(\.1)?$/),
  title: z.string().optional(),
  items: z.array(z.unknown()),
});

function parseJsonFeed(body: string, asOf: Date, budget: ParseBudget) {
  const read = (envelope: z.infer<typeof JsonFeedEnvelopeSchema>) => {
    const kept = envelope.items.slice(0, MAX_FEED_ITEMS);
    const parsed = z.array(JsonFeedItemSchema).safeParse(kept);
    if (!parsed.success) return { ok: false, detail: schemaMismatch(parsed.error, ['items']) } as const;
    const raws = parsed.data.map((i) => ({
      id: String(i.id),
      title: i.title ?? '',
      link: i.url ?? '',
      date: i.date_published ?? i.date_modified ?? '',
      excerpt: i.summary ?? i.content_text ?? i.content_html ?? '',
    }));
    const itemsOverCap = envelope.items.length - kept.length;
    return collect({ format: 'json', title: envelope.title ?? '', items: raws, itemsOverCap }, asOf);
  };
  return parseJsonWithin(body, JsonFeedEnvelopeSchema, read, budget);
}

/**
 * A feed body in any supported format → cleaned, validated items, under the feed budget (size, items, nesting,
 * time). Items that fail the sanity rules (sanitize.ts) are counted per reason in `rejected`.
 */
export function parseFeed(body: string, asOf: Date, budget: ParseBudget = FEED_BUDGET) {
  const tooBig = checkSize(body, budget);
  if (tooBig) return { ok: false, detail: tooBig } as const;
  const trimmed = body.trimStart();
  if (trimmed.startsWith('{')) return parseJsonFeed(trimmed, asOf, budget);
  const xml = parseXmlFeed(trimmed, budget, MAX_FEED_ITEMS);
  return xml.ok ? collect(xml, asOf) : xml;
}

/** Fetches one feed. `items_read` counts every valid item in the feed, not only the ones that became signals. */
export function fetchSignalFeed(fetcher: Fetcher, config: SourceConfig, asOf: Date): Promise<SourceResult> {
  const accept = 'application/feed+json, application/atom+xml, application/rss+xml, application/xml;q=0.9, */*;q=0.5';
  return readSource(fetcher, config, asOf, { accept }, (body) => {
    const parsed = parseFeed(body, asOf);
    if (!parsed.ok) return parsed;
    const { items, title } = parsed.feed;
    const signals = items
      .filter((i) => isResetNews(i, title))
      .map((i) => ({
        // Keyed by link first, so the same post seen through two feeds is one signal.
        id: `feed-item-${sha256Hex(i.link ?? i.id, 24)}`,
        kind: 'feed_item' as const,
        source: config.id,
        title: i.title,
        excerpt: i.excerpt,
        url: i.link,
        published_at: i.published_at,
        first_seen_at: formatInstant(asOf),
        review: 'awaiting_review' as const,
        promoted_to: null,
      }));
    return { ok: true, items: items.length, detail: readDetail('ok', {}, parsed.rejected), data: { signals } };
  });
}
