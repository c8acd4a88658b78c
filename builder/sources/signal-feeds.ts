// Source 3: public signal feeds (RSS 2.0, Atom 1.0, JSON Feed 1.x). Items that look like reset news become
// signals awaiting review; nothing here ever becomes an event without a human decision in data/reviews.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Signal } from '../model/schemas.ts';
import { cleanText, computeCheck, decodeEntities, failedFetchResult, isHttpUrl, parseJsonBody, schemaMismatch, toIsoInstant } from './common.ts';
import type { SourceResult } from '../model/inputs.ts';
import type { Fetcher, SourceConfig } from './fetcher.ts';

export const MAX_FEED_ITEMS = 200;
export const TITLE_MAX_CHARS = 300;
export const EXCERPT_MAX_CHARS = 1000;

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

export type ParseFeedResult = { ok: true; feed: ParsedFeed } | { ok: false; code: 'invalid_json' | 'unknown_feed_format' } | { ok: false; code: 'schema_mismatch'; path: string };

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

// ---- A small, bounded XML extractor ------------------------------------------------------------------------------
// Not a general XML parser: it finds the handful of elements feeds use, skips CDATA and comments while looking
// for closing tags, and never expands DTD-declared entities (so entity-expansion attacks have nothing to expand).

interface Element {
  attrs: Record<string, string>;
  inner: string;
}

function isNameEnd(c: string | undefined): boolean {
  return c === undefined || c === '>' || c === '/' || c === ' ' || c === '\t' || c === '\n' || c === '\r';
}

/** Index of the `</name` that closes an element whose content starts at `from`, skipping CDATA and comments. */
function findClose(xml: string, name: string, from: number): number {
  let pos = from;
  for (;;) {
    const lt = xml.indexOf('<', pos);
    if (lt === -1) return -1;
    if (xml.startsWith('<![CDATA[', lt)) {
      const end = xml.indexOf(']]>', lt + 9);
      if (end === -1) return -1;
      pos = end + 3;
    } else if (xml.startsWith('<!--', lt)) {
      const end = xml.indexOf('-->', lt + 4);
      if (end === -1) return -1;
      pos = end + 3;
    } else if (xml.startsWith(`</${name}`, lt) && isNameEnd(xml[lt + 2 + name.length])) {
      return lt;
    } else pos = lt + 1;
  }
}

function parseAttrs(tag: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  for (const m of tag.matchAll(/([A-Za-z_][\w:.-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
    attrs[m[1]!] = decodeEntities(m[2] ?? m[3] ?? '');
  }
  return attrs;
}

/** Elements named `name` found in `xml` (not nested in each other), at most `max`. */
function findElements(xml: string, name: string, max: number): Element[] {
  const out: Element[] = [];
  let pos = 0;
  while (out.length < max) {
    const start = xml.indexOf(`<${name}`, pos);
    if (start === -1) break;
    if (!isNameEnd(xml[start + 1 + name.length])) {
      pos = start + 1;
      continue;
    }
    const tagEnd = xml.indexOf('>', start);
    if (tagEnd === -1) break;
    const attrs = parseAttrs(xml.slice(start + 1 + name.length, tagEnd));
    if (xml[tagEnd - 1] === '/') {
      out.push({ attrs, inner: '' });
      pos = tagEnd + 1;
      continue;
    }
    const close = findClose(xml, name, tagEnd + 1);
    if (close === -1) break;
    out.push({ attrs, inner: xml.slice(tagEnd + 1, close) });
    pos = close + name.length + 2;
  }
  return out;
}

function firstElement(xml: string, names: readonly string[]): Element | null {
  for (const n of names) {
    const [e] = findElements(xml, n, 1);
    if (e) return e;
  }
  return null;
}

/** Character data of an element: CDATA kept as written, everything else entity-decoded, comments dropped. */
function xmlText(inner: string): string {
  let out = '';
  let pos = 0;
  for (;;) {
    const c = inner.indexOf('<![CDATA[', pos);
    const segment = c === -1 ? inner.slice(pos) : inner.slice(pos, c);
    out += decodeEntities(segment.replace(/<!--[\s\S]*?-->/g, ''));
    if (c === -1) return out;
    const end = inner.indexOf(']]>', c + 9);
    out += inner.slice(c + 9, end === -1 ? undefined : end);
    if (end === -1) return out;
    pos = end + 3;
  }
}

/** The document's root element name, skipping the XML declaration, comments, processing instructions and DOCTYPE. */
function rootName(xml: string): string | null {
  let pos = 0;
  for (;;) {
    const lt = xml.indexOf('<', pos);
    if (lt === -1) return null;
    const skip = xml.startsWith('<?', lt) ? '?>' : xml.startsWith('<!--', lt) ? '-->' : xml.startsWith('<!', lt) ? '>' : null;
    if (skip === null) return /^<([A-Za-z_][\w:.-]*)/.exec(xml.slice(lt, lt + 100))?.[1] ?? null;
    const end = xml.indexOf(skip, lt + 2);
    if (end === -1) return null;
    pos = end + skip.length;
  }
}

function textOf(block: string, names: readonly string[]): string {
  const e = firstElement(block, names);
  return e ? xmlText(e.inner) : '';
}

function atomLink(block: string): string {
  const links = findElements(block, 'link', 20);
  const alt = links.find((l) => !l.attrs.rel || l.attrs.rel === 'alternate');
  return (alt ?? links[0])?.attrs.href ?? '';
}

function makeItem(raw: { id: string; title: string; link: string; date: string; excerpt: string }): FeedItem | null {
  const link = raw.link.trim();
  const item = {
    title: cleanText(raw.title, TITLE_MAX_CHARS),
    link: isHttpUrl(link) ? link : null,
    published_at: toIsoInstant(raw.date),
    excerpt: cleanText(raw.excerpt, EXCERPT_MAX_CHARS),
  };
  const id = raw.id.trim() || item.link || `${item.title}|${item.published_at ?? ''}`;
  const parsed = FeedItemSchema.safeParse({ ...item, id: id.slice(0, 2000) });
  return parsed.success && (parsed.data.title !== '' || parsed.data.excerpt !== '') ? parsed.data : null;
}

/** The part before the first item: where the feed's own title lives. */
function headOf(xml: string, firstItemTag: string): string {
  const i = xml.indexOf(firstItemTag);
  return i === -1 ? xml : xml.slice(0, i);
}

function parseXmlFeed(xml: string): ParseFeedResult {
  const root = rootName(xml);
  if (root === 'rss' || root === 'rdf:RDF') {
    const head = headOf(xml, '<item');
    const items = findElements(xml, 'item', MAX_FEED_ITEMS).map(({ inner }) => {
      const guid = textOf(inner, ['guid']);
      const link = textOf(inner, ['link']) || (isHttpUrl(guid.trim()) ? guid : '');
      return makeItem({ id: guid, title: textOf(inner, ['title']), link, date: textOf(inner, ['pubDate', 'dc:date']), excerpt: textOf(inner, ['description', 'content:encoded']) });
    });
    return { ok: true, feed: { format: 'rss', title: cleanText(textOf(head, ['title']), TITLE_MAX_CHARS), items: items.filter((i) => i !== null) } };
  }
  if (root === 'feed') {
    const head = headOf(xml, '<entry');
    const items = findElements(xml, 'entry', MAX_FEED_ITEMS).map(({ inner }) =>
      makeItem({ id: textOf(inner, ['id']), title: textOf(inner, ['title']), link: atomLink(inner), date: textOf(inner, ['published', 'updated']), excerpt: textOf(inner, ['summary', 'content']) }),
    );
    return { ok: true, feed: { format: 'atom', title: cleanText(textOf(head, ['title']), TITLE_MAX_CHARS), items: items.filter((i) => i !== null) } };
  }
  return { ok: false, code: 'unknown_feed_format' };
}

export const JsonFeedSchema = z.object({
  version: z.string().regex(/^https:\/\/jsonfeed\.org\/version\/1(\.1)?$/),
  title: z.string().optional(),
  items: z.array(
    z.object({
      id: z.union([z.string(), z.number()]),
      url: z.string().optional(),
      title: z.string().optional(),
      content_html: z.string().optional(),
      content_text: z.string().optional(),
      summary: z.string().optional(),
      date_published: z.string().optional(),
      date_modified: z.string().optional(),
    }),
  ),
});

function parseJsonFeed(body: string): ParseFeedResult {
  const json = parseJsonBody(body);
  if (!json.ok) return { ok: false, code: 'invalid_json' };
  const parsed = JsonFeedSchema.safeParse(json.value);
  if (!parsed.success) {
    const d = schemaMismatch(parsed.error);
    return { ok: false, code: 'schema_mismatch', path: String(d.params.path) };
  }
  const items = parsed.data.items.slice(0, MAX_FEED_ITEMS).map((i) =>
    makeItem({
      id: String(i.id),
      title: i.title ?? '',
      link: i.url ?? '',
      date: i.date_published ?? i.date_modified ?? '',
      excerpt: i.summary ?? i.content_text ?? i.content_html ?? '',
    }),
  );
  return { ok: true, feed: { format: 'json', title: cleanText(parsed.data.title ?? '', TITLE_MAX_CHARS), items: items.filter((i) => i !== null) } };
}

/** Pure: a feed body in any supported format → cleaned, validated items. */
export function parseFeed(body: string): ParseFeedResult {
  const trimmed = body.trimStart();
  return trimmed.startsWith('{') ? parseJsonFeed(trimmed) : parseXmlFeed(trimmed);
}

function signalId(item: FeedItem): string {
  // Keyed by link first, so the same post seen through two feeds is one signal.
  return `feed-item-${createHash('sha256').update(item.link ?? item.id).digest('hex').slice(0, 24)}`;
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
      first_seen_at: asOf.toISOString(),
      review: 'awaiting_review' as const,
      promoted_to: null,
    }));
}

/** Fetches one feed. `items_read` counts every valid item in the feed, not only the ones that became signals. */
export async function fetchSignalFeed(fetcher: Fetcher, config: SourceConfig, asOf: Date): Promise<SourceResult> {
  const r = await fetcher.get(config.url, { accept: 'application/feed+json, application/atom+xml, application/rss+xml, application/xml;q=0.9, */*;q=0.5' });
  if (!r.ok) return failedFetchResult(config, asOf, r);
  const base = { http_status: r.status, latency_ms: r.latencyMs };
  const parsed = parseFeed(r.body);
  if (!parsed.ok) {
    const detail = parsed.code === 'schema_mismatch' ? { code: parsed.code, params: { path: parsed.path } } : { code: parsed.code, params: {} };
    return { check: computeCheck(config, asOf, { ...base, ok: false, items_read: 0, detail }) };
  }
  return {
    check: computeCheck(config, asOf, { ...base, ok: true, items_read: parsed.feed.items.length, detail: { code: 'ok', params: {} } }),
    signals: computeFeedSignals(config, parsed.feed, asOf),
  };
}
