// Pure: Atom (RFC 4287) and JSON Feed 1.1 documents from the follow entries, written by the `feed` library.
import { Feed } from 'feed';
import type { TFunction } from 'i18next';
import { formatInstant, type Lang } from '../contract.ts';
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
const NOT_XML =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const xmlText = (s: string): string => s.replace(NOT_XML, '');

/** Escaped, so hostile text can neither add markup nor close the library's CDATA section (`]]>` → `]]&gt;`). */
function escapeHtml(s: string): string {
  return xmlText(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const entryId = (e: FollowEntry): string => `${TAG_PREFIX}${e.kind === 'reset' ? 'event' : 'announcement'}/${e.id}`;

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
    // codex-resets.com asks everyone who shows its data to link back to it.
    description: entries.some((e) => e.fromTracker)
      ? `${t('follow:feed.subtitle')} ${t('follow:credit')}`
      : t('follow:feed.subtitle'),
    link: `${base}/${lang}/`,
    language: lang,
    updated: entries[0]?.updated ?? new Date(0),
    generator: 'Reset Status API',
    feedLinks: { atom: `${base}/api/feed.atom?lang=${lang}`, json: `${base}/api/feed.json?lang=${lang}` },
    // RFC 4287 wants an author on the feed when its entries have none.
    author: { name: 'Reset Status API', link: `${base}/api/` },
  });
  for (const e of entries) {
    feed.addItem({
      id: entryId(e),
      title: text(e.title),
      link: e.link,
      date: e.updated,
      published: e.updated,
      description: text(e.summary),
      content: contentHtml(e),
      ...(e.sourceUrl
        ? {
            extensions: [{ name: '_reset_status', objects: { kind: e.kind, event_id: e.id, source_url: e.sourceUrl } }],
          }
        : {}),
    });
  }
  return feed;
}

const ATOM_ROOT = '<feed xmlns="http://www.w3.org/2005/Atom">';
/** The library's `Date#toISOString` in `<updated>` and `<published>`; user text never holds a raw `<` (escapeHtml). */
const ATOM_TIMES = /<(updated|published)>([^<]+)<\/\1>/g;

/**
 * The library's Atom, brought to what this API promises: `xml:lang` on the feed (RFC 4287 3 via XML's own
 * attribute), timestamps to the second, and each entry's JSON document as a second alternate link of its own type
 * beside the human page (RFC 4287 4.2.7.2 allows one alternate per type). The library offers none of the three.
 */
export function renderAtom(input: FeedInput): string {
  let xml = buildFeed(input, 'atom').atom1();
  if (!xml.includes(ATOM_ROOT))
    throw new Error('[render/feeds] the feed library no longer writes the Atom root this code extends');
  xml = xml.replace(ATOM_ROOT, `<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="${input.lang}">`);
  xml = xml.replace(ATOM_TIMES, (_m, tag: string, at: string) => `<${tag}>${formatInstant(at)}</${tag}>`);
  // Entry links are the only links without `rel` the library writes, and each entry's link is its own anchor.
  const jsonOf = new Map(input.entries.map((e) => [e.link, e.json]));
  let linked = 0;
  xml = xml.replace(/<link href="([^"]*)"\/>/g, (plain, href: string) => {
    const json = jsonOf.get(href);
    if (json === undefined) return plain;
    linked++;
    return `<link rel="alternate" type="text/html" href="${href}"/>\n        <link rel="alternate" type="application/json" href="${json}"/>`;
  });
  if (linked !== input.entries.length)
    throw new Error('[render/feeds] the feed library no longer writes entry links as this code expects');
  return xml;
}

/**
 * The library writes JSON Feed 1.0; 1.1 is a superset that adds `language` and `authors`, which replaces the
 * deprecated `author` (dropped here). Items keep `id`, `url` (the human page's anchor), `title`, `summary`,
 * `content_html`, and gain `external_url`: the entry's JSON document. Dates to the second.
 */
export function renderJsonFeed(input: FeedInput): string {
  const { author, items, ...doc } = JSON.parse(buildFeed(input, 'json').json1()) as Record<string, unknown> & {
    items: Record<string, unknown>[];
  };
  const byId = new Map(input.entries.map((e) => [entryId(e), e]));
  const out = items.map((item) => {
    const e = byId.get(String(item.id));
    if (e === undefined)
      throw new Error(`[render/feeds] the feed library wrote an item this code did not give it: ${String(item.id)}`);
    const dates = Object.fromEntries(
      (['date_published', 'date_modified'] as const)
        .filter((k) => typeof item[k] === 'string')
        .map((k) => [k, formatInstant(item[k] as string)]),
    );
    return { ...item, external_url: e.json, ...dates };
  });
  return JSON.stringify(
    {
      ...doc,
      version: 'https://jsonfeed.org/version/1.1',
      language: input.lang,
      ...(author ? { authors: [author] } : {}),
      items: out,
    },
    null,
    2,
  );
}
