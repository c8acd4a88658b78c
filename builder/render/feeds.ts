// Pure: Atom (RFC 4287) and JSON Feed 1.1 documents from the follow entries, written by the `feed` library.
import { Feed } from 'feed';
import type { TFunction } from 'i18next';
import type { Lang } from '../model/schemas.ts';
import type { FollowEntry } from './follow.ts';

/** Ids are tag URIs (RFC 4151): independent of where the API is hosted, identical in every language. */
export const TAG_PREFIX = 'tag:reset-status-api,2026:';

export interface FeedInput {
  lang: Lang;
  t: TFunction;
  base: string;
  entries: readonly FollowEntry[];
}

// Characters XML 1.0 cannot carry at all (escaped or not), and lone surrogates: upstream text may hold them.
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const xmlText = (s: string): string => s.replace(NOT_XML, '');

/** Escaped, so hostile text can neither add markup nor close the library's CDATA section (`]]>` → `]]&gt;`). */
function escapeHtml(s: string): string {
  return xmlText(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function contentHtml(e: FollowEntry): string {
  const post = e.sourceUrl ? `<p><a href="${escapeHtml(e.sourceUrl)}">${escapeHtml(e.sourceUrl)}</a></p>` : '';
  return `<p>${escapeHtml(e.summary)}</p><blockquote>${escapeHtml(e.text)}</blockquote>${post}`;
}

/**
 * The feed as the library models it. Its `updated` is the newest entry's time (not the build time), so the bytes
 * change only when the content does.
 */
function buildFeed(input: FeedInput, format: 'atom' | 'json'): Feed {
  // Atom's title and summary are `type="html"`; JSON Feed's `title` and `summary` are plain text.
  const text = format === 'atom' ? escapeHtml : xmlText;
  const { lang, t, base, entries } = input;
  const feed = new Feed({
    id: `${TAG_PREFIX}feed`,
    title: t('follow:feed.title'),
    description: t('follow:feed.subtitle'),
    link: `${base}/api/latest?lang=${lang}`,
    language: lang,
    updated: entries[0]?.updated ?? new Date(0),
    generator: 'Reset Status API',
    feedLinks: { atom: `${base}/api/feed.atom?lang=${lang}`, json: `${base}/api/feed.json?lang=${lang}` },
    // RFC 4287 wants an author on the feed when its entries have none.
    author: { name: 'Reset Status API', link: `${base}/api/` },
  });
  for (const e of entries) {
    feed.addItem({
      id: `${TAG_PREFIX}${e.kind === 'reset' ? 'event' : 'announcement'}/${e.id}`,
      title: text(e.title),
      link: e.link,
      date: e.updated,
      published: e.updated,
      description: text(e.summary),
      content: contentHtml(e),
      ...(e.sourceUrl ? { extensions: [{ name: '_reset_status', objects: { kind: e.kind, event_id: e.id, source_url: e.sourceUrl } }] } : {}),
    });
  }
  return feed;
}

export function renderAtom(input: FeedInput): string {
  return buildFeed(input, 'atom').atom1();
}

/**
 * The library writes JSON Feed 1.0; 1.1 is a superset that adds `language` and `authors` (for the deprecated
 * `author`), so the document is upgraded in place. Items keep `id`, `url`, `title`, `summary`, `content_html`.
 */
export function renderJsonFeed(input: FeedInput): string {
  const doc = JSON.parse(buildFeed(input, 'json').json1()) as Record<string, unknown>;
  const authors = doc.author ? { authors: [doc.author] } : {};
  return JSON.stringify({ ...doc, version: 'https://jsonfeed.org/version/1.1', language: input.lang, ...authors }, null, 2);
}
