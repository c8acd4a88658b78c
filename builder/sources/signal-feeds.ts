// Source 3: public signal feeds (RSS 2.0, Atom 1.0, JSON Feed 1.x). Items that look like reset news become
// signals awaiting review; nothing here ever becomes an event without a human decision in data/reviews.
import { formatInstant } from '../contract.ts';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Detail, Signal } from '../model/schemas.ts';
import type { SourceResult } from '../model/inputs.ts';
import { checkSize, FEED_BUDGET, parseJsonWithin, schemaMismatch, type ParseBudget } from './budget.ts';
import { parseXmlFeed, type RawFeedItem } from './feed-xml.ts';
import { readSource, type Fetcher, type SourceConfig } from './fetcher.ts';
import { readInstant } from './instant.ts';
import { cleanText, cleanUrl, count, judgeInstant, readDetail, TEXT_LIMITS, type RejectCounts } from './sanitize.ts';

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

interface ParsedFeed {
  format: 'rss' | 'atom' | 'json';
  title: string;
  items: FeedItem[];
}

type ParseFeedResult = { ok: true; feed: ParsedFeed; rejected: RejectCounts } | { ok: false; detail: Detail };

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

/** Raw items → cleaned, validated items; what fails the sanity rules is counted per reason. */
function collect(
  format: ParsedFeed['format'],
  title: string,
  raws: readonly RawFeedItem[],
  overCap: number,
  asOf: Date,
): ParseFeedResult {
  const rejected: RejectCounts = {};
  if (overCap > 0) count(rejected, 'over_item_cap', overCap);
  const items: FeedItem[] = [];
  for (const raw of raws) {
    // Feeds are written by hand and by every kind of software: a date without a zone is read as UTC (docs/sources.md).
    const read = readInstant(raw.date, 'utc');
    const published = read.ok ? read.iso : null;
    const verdict = published === null ? 'ok' : judgeInstant(published, asOf);
    if (verdict !== 'ok') {
      count(rejected, verdict);
      continue;
    }
    const item = {
      title: cleanText(raw.title, TEXT_LIMITS.title),
      link: cleanUrl(raw.link),
      published_at: published,
      excerpt: cleanText(raw.excerpt, TEXT_LIMITS.excerpt),
    };
    if (item.title === '' && item.excerpt === '') {
      count(rejected, 'empty_text');
      continue;
    }
    const id = cleanText(raw.id, TEXT_LIMITS.id) || item.link || `${item.title}|${item.published_at ?? ''}`;
    const parsed = FeedItemSchema.safeParse({ ...item, id: id.slice(0, 2000) });
    if (!parsed.success) {
      count(rejected, 'invalid_record');
      continue;
    }
    items.push(parsed.data);
    // A link that is not http(s) with a host is dropped (and counted); the item itself stays a signal without a link.
    if (raw.link.trim() !== '' && item.link === null) count(rejected, 'bad_url');
  }
  return { ok: true, feed: { format, title: cleanText(title, TEXT_LIMITS.title), items }, rejected };
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

function parseJsonFeed(body: string, asOf: Date, budget: ParseBudget): ParseFeedResult {
  const read = (envelope: z.infer<typeof JsonFeedEnvelopeSchema>): ParseFeedResult => {
    const kept = envelope.items.slice(0, MAX_FEED_ITEMS);
    const parsed = z.array(JsonFeedItemSchema).safeParse(kept);
    if (!parsed.success) return { ok: false, detail: schemaMismatch(parsed.error, ['items']) };
    const raws = parsed.data.map((i) => ({
      id: String(i.id),
      title: i.title ?? '',
      link: i.url ?? '',
      date: i.date_published ?? i.date_modified ?? '',
      excerpt: i.summary ?? i.content_text ?? i.content_html ?? '',
    }));
    return collect('json', envelope.title ?? '', raws, envelope.items.length - kept.length, asOf);
  };
  return parseJsonWithin(body, JsonFeedEnvelopeSchema, read, budget);
}

/**
 * A feed body in any supported format → cleaned, validated items, under the feed budget (size, items, nesting,
 * time). Items that fail the sanity rules (sanitize.ts) are counted per reason in `rejected`.
 */
export function parseFeed(body: string, asOf: Date, budget: ParseBudget = FEED_BUDGET): ParseFeedResult {
  const tooBig = checkSize(body, budget);
  if (tooBig) return { ok: false, detail: tooBig };
  const trimmed = body.trimStart();
  if (trimmed.startsWith('{')) return parseJsonFeed(trimmed, asOf, budget);
  const xml = parseXmlFeed(trimmed, budget, MAX_FEED_ITEMS);
  if (!xml.ok) return xml;
  return collect(xml.format, xml.title, xml.items, xml.itemsOverCap, asOf);
}

function computeFeedSignals(config: SourceConfig, feed: ParsedFeed, asOf: Date): Signal[] {
  return feed.items
    .filter((i) => isResetNews(i, feed.title))
    .map((i) => ({
      // Keyed by link first, so the same post seen through two feeds is one signal.
      id: `feed-item-${createHash('sha256')
        .update(i.link ?? i.id)
        .digest('hex')
        .slice(0, 24)}`,
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
}

/** Fetches one feed. `items_read` counts every valid item in the feed, not only the ones that became signals. */
export function fetchSignalFeed(fetcher: Fetcher, config: SourceConfig, asOf: Date): Promise<SourceResult> {
  const accept = 'application/feed+json, application/atom+xml, application/rss+xml, application/xml;q=0.9, */*;q=0.5';
  return readSource(fetcher, config, asOf, accept, (body) => {
    const parsed = parseFeed(body, asOf);
    if (!parsed.ok) return parsed;
    const { items } = parsed.feed;
    const data = { signals: computeFeedSignals(config, parsed.feed, asOf) };
    return { ok: true, items: items.length, detail: readDetail('ok', {}, parsed.rejected), data };
  });
}
