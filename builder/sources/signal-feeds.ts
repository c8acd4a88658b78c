// Source 3: public signal feeds (RSS 2.0, Atom 1.0, JSON Feed 1.x). Items that look like reset news become
// signals awaiting review; nothing here ever becomes an event without a human decision in data/reviews.
import { formatInstant } from '../contract.ts';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Detail, Signal } from '../model/schemas.ts';
import { checkSize, FEED_BUDGET, type ParseBudget } from './budget.ts';
import {
  computeCheck,
  failedFetchResult,
  fetchOptions,
  parseJsonWithin,
  readDetail,
  schemaMismatch,
  toIsoInstant,
} from './common.ts';
import { parseXmlFeed, type RawFeedItem } from './feed-xml.ts';
import type { SourceResult } from '../model/inputs.ts';
import type { Fetcher, SourceConfig } from './fetcher.ts';
import {
  cleanText,
  cleanUrl,
  countReject,
  judgeInstant,
  TEXT_LIMITS,
  type RejectCounts,
  type RejectReason,
} from './sanitize.ts';

export const MAX_FEED_ITEMS = 200;
export const TITLE_MAX_CHARS = TEXT_LIMITS.title;
export const EXCERPT_MAX_CHARS = TEXT_LIMITS.excerpt;

/** What the extractor keeps of one item, after cleaning; validated before it becomes a signal. */
export const FeedItemSchema = z.object({
  id: z.string().min(1).max(2000),
  title: z.string().max(TITLE_MAX_CHARS),
  link: z.url({ protocol: /^https?$/ }).nullable(),
  published_at: z.iso.datetime().nullable(),
  excerpt: z.string().max(EXCERPT_MAX_CHARS),
});
export type FeedItem = z.infer<typeof FeedItemSchema>;

export interface ParsedFeed {
  format: 'rss' | 'atom' | 'json';
  title: string;
  items: FeedItem[];
}

export type ParseFeedResult = { ok: true; feed: ParsedFeed; rejected: RejectCounts } | { ok: false; detail: Detail };

// ---- The keyword rule -------------------------------------------------------------------------------------------
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

/** A raw item → a cleaned, validated item, or the reason it was rejected (counted in the check). */
function makeItem(
  raw: RawFeedItem,
  asOf: Date,
): { ok: true; item: FeedItem; linkRejected: boolean } | { ok: false; reason: RejectReason } {
  // Feeds are written by hand and by every kind of software: a date without a zone is read as UTC (docs/sources.md).
  const published = toIsoInstant(raw.date, 'utc');
  if (published !== null) {
    const verdict = judgeInstant(published, asOf);
    if (verdict !== 'ok') return { ok: false, reason: verdict };
  }
  const item = {
    title: cleanText(raw.title, TITLE_MAX_CHARS),
    link: cleanUrl(raw.link),
    published_at: published,
    excerpt: cleanText(raw.excerpt, EXCERPT_MAX_CHARS),
  };
  if (item.title === '' && item.excerpt === '') return { ok: false, reason: 'empty_text' };
  const id = cleanText(raw.id, TEXT_LIMITS.id) || item.link || `${item.title}|${item.published_at ?? ''}`;
  const parsed = FeedItemSchema.safeParse({ ...item, id: id.slice(0, 2000) });
  if (!parsed.success) return { ok: false, reason: 'invalid_record' };
  // A link that is not http(s) with a host is dropped (and counted); the item itself stays a signal without a link.
  return { ok: true, item: parsed.data, linkRejected: raw.link.trim() !== '' && item.link === null };
}

function collect(
  format: ParsedFeed['format'],
  title: string,
  raws: readonly RawFeedItem[],
  overCap: number,
  asOf: Date,
): ParseFeedResult {
  const rejected: RejectCounts = {};
  if (overCap > 0) countReject(rejected, 'over_item_cap', overCap);
  const items: FeedItem[] = [];
  for (const raw of raws) {
    const r = makeItem(raw, asOf);
    if (!r.ok) countReject(rejected, r.reason);
    else {
      items.push(r.item);
      if (r.linkRejected) countReject(rejected, 'bad_url');
    }
  }
  return { ok: true, feed: { format, title: cleanText(title, TITLE_MAX_CHARS), items }, rejected };
}

export const JsonFeedItemSchema = z.object({
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

function parseJsonFeed(body: string, asOf: Date, budget: ParseBudget, now?: () => number): ParseFeedResult {
  const envelope = parseJsonWithin(body, JsonFeedEnvelopeSchema, budget, now);
  if (!envelope.ok) return envelope;
  const kept = envelope.value.items.slice(0, MAX_FEED_ITEMS);
  const parsed = z.array(JsonFeedItemSchema).safeParse(kept);
  if (!parsed.success) return { ok: false, detail: schemaMismatch(parsed.error, ['items']) };
  const raws = parsed.data.map((i) => ({
    id: String(i.id),
    title: i.title ?? '',
    link: i.url ?? '',
    date: i.date_published ?? i.date_modified ?? '',
    excerpt: i.summary ?? i.content_text ?? i.content_html ?? '',
  }));
  const result = collect('json', envelope.value.title ?? '', raws, envelope.value.items.length - kept.length, asOf);
  const over = envelope.clock.over();
  return over ? { ok: false, detail: over } : result;
}

/**
 * A feed body in any supported format → cleaned, validated items, under the feed budget (FEED_BUDGET: size, items,
 * nesting, time). Items that fail the sanity rules (sanitize.ts) are counted per reason in `rejected`.
 */
export function parseFeed(
  body: string,
  asOf: Date,
  now?: () => number,
  budget: ParseBudget = FEED_BUDGET,
): ParseFeedResult {
  const tooBig = checkSize(body, budget);
  if (tooBig) return { ok: false, detail: tooBig };
  const trimmed = body.trimStart();
  if (trimmed.startsWith('{')) return parseJsonFeed(trimmed, asOf, budget, now);
  const xml = parseXmlFeed(trimmed, budget, MAX_FEED_ITEMS, now);
  if (!xml.ok) return xml;
  return collect(xml.format, xml.title, xml.items, xml.itemsOverCap, asOf);
}

function signalId(item: FeedItem): string {
  // Keyed by link first, so the same post seen through two feeds is one signal.
  return `feed-item-${createHash('sha256')
    .update(item.link ?? item.id)
    .digest('hex')
    .slice(0, 24)}`;
}

export function computeFeedSignals(config: SourceConfig, feed: ParsedFeed, asOf: Date): Signal[] {
  return feed.items
    .filter((i) => isResetNews(i, feed.title))
    .map((i) => ({
      id: signalId(i),
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
export async function fetchSignalFeed(fetcher: Fetcher, config: SourceConfig, asOf: Date): Promise<SourceResult> {
  const r = await fetcher.get(
    config.url,
    fetchOptions(
      config,
      'application/feed+json, application/atom+xml, application/rss+xml, application/xml;q=0.9, */*;q=0.5',
    ),
  );
  if (!r.ok) return failedFetchResult(config, asOf, r);
  const base = { http_status: r.status, latency_ms: r.latencyMs };
  const parsed = parseFeed(r.body, asOf);
  if (!parsed.ok)
    return { check: computeCheck(config, asOf, { ...base, ok: false, items_read: 0, detail: parsed.detail }) };
  return {
    check: computeCheck(config, asOf, {
      ...base,
      ok: true,
      items_read: parsed.feed.items.length,
      detail: readDetail('ok', {}, parsed.rejected),
    }),
    signals: computeFeedSignals(config, parsed.feed, asOf),
  };
}
