// RSS and Atom through a streaming XML parser (saxes), under a parse budget. Chosen over fast-xml-parser by
// measurement on hostile 2 MiB inputs (BENCHMARKS.md, "Hostile sources"): saxes is 5-40x faster on all but one case
// and, being streaming, lets this module stop at the depth cap, check the clock between chunks and keep only the
// few fields a signal needs. DTD-declared entities are never expanded (saxes reports them as undefined, and the
// feed fails as invalid XML), so entity-expansion bombs have nothing to expand.
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import type { Detail } from '../model/schemas.ts';
import { budgetClock, type ParseBudget } from './budget.ts';
import { HTML_ENTITIES } from './sanitize.ts';

/** The raw text of one item's fields, before cleaning. */
export type RawFeedItem = { id: string; title: string; link: string; date: string; excerpt: string };

/** Each field keeps at most this much raw text: enough to fill any capped output, bounded on hostile input. */
const FIELD_CAPTURE_CHARS = 20_000;
/** Chunks fed to the parser between two time checks. */
const CHUNK_CHARS = 64 * 1024;

const ROOTS: Record<string, 'rss' | 'atom'> = { rss: 'rss', 'rdf:RDF': 'rss', feed: 'atom' };
const ITEM_TAG = { rss: 'item', atom: 'entry' } as const;
/** A field, or the fallback of one (`updated` for `date`, `content` for `excerpt`): used when the first is missing. */
type Slot = keyof RawFeedItem | 'updated' | 'content';
/** Item child elements we read, mapped to the slot they fill; the first element found for a slot wins. */
const FIELDS = {
  rss: {
    guid: 'id',
    title: 'title',
    link: 'link',
    pubDate: 'date',
    'dc:date': 'date',
    description: 'excerpt',
    'content:encoded': 'content',
  },
  atom: { id: 'id', title: 'title', published: 'date', updated: 'updated', summary: 'excerpt', content: 'content' },
} as const satisfies Record<'rss' | 'atom', Record<string, Slot>>;

class Abort {
  constructor(readonly detail: Detail) {}
}

interface Walk {
  format: 'rss' | 'atom' | null;
  depth: number;
  title: string | null;
  item: { fields: Partial<Record<Slot, string>>; links: { href: string; rel: string }[]; depth: number } | null;
  capture: { field: Slot | 'feed_title'; depth: number; text: string } | null;
  items: RawFeedItem[];
  itemsOverCap: number;
}

const attr = (tag: SaxesTagPlain, name: string): string =>
  Object.hasOwn(tag.attributes, name) ? (tag.attributes[name] ?? '') : '';

function onOpen(w: Walk, tag: SaxesTagPlain, budget: ParseBudget): void {
  w.depth++;
  if (w.depth > budget.maxDepth) throw new Abort({ code: 'too_deeply_nested', params: { max: budget.maxDepth } });
  if (w.format === null) {
    const format = Object.hasOwn(ROOTS, tag.name) ? ROOTS[tag.name] : undefined;
    if (format === undefined) throw new Abort({ code: 'unknown_feed_format', params: {} });
    w.format = format;
    return;
  }
  if (w.capture !== null) return;
  if (w.item === null) {
    if (tag.name === ITEM_TAG[w.format]) w.item = { fields: {}, links: [], depth: w.depth };
    // The feed's own title: a child of <channel> (RSS, at depth 3) or of <feed> (Atom, depth 2).
    else if (tag.name === 'title' && w.title === null && w.depth === (w.format === 'rss' ? 3 : 2))
      w.capture = { field: 'feed_title', depth: w.depth, text: '' };
    return;
  }
  if (w.format === 'atom' && tag.name === 'link' && w.item.links.length < 20)
    w.item.links.push({ href: attr(tag, 'href'), rel: attr(tag, 'rel') });
  const fields: Record<string, Slot> = FIELDS[w.format];
  const field = Object.hasOwn(fields, tag.name) ? fields[tag.name] : undefined;
  if (field !== undefined && w.item.fields[field] === undefined && !tag.isSelfClosing)
    w.capture = { field, depth: w.depth, text: '' };
}

function onText(w: Walk, text: string): void {
  const c = w.capture;
  if (c !== null && c.text.length < FIELD_CAPTURE_CHARS) c.text += text.slice(0, FIELD_CAPTURE_CHARS - c.text.length);
}

function onClose(w: Walk, maxItems: number): void {
  const c = w.capture;
  if (c !== null && c.depth === w.depth) {
    if (c.field === 'feed_title') w.title = c.text;
    else if (w.item !== null) w.item.fields[c.field] = c.text;
    w.capture = null;
  } else if (w.item !== null && w.item.depth === w.depth) {
    if (w.items.length < maxItems) {
      const f = w.item.fields;
      const alt = w.item.links.find((l) => l.rel === '' || l.rel === 'alternate') ?? w.item.links[0];
      w.items.push({
        id: f.id ?? '',
        title: f.title ?? '',
        link: f.link ?? alt?.href ?? '',
        date: f.date ?? f.updated ?? '',
        excerpt: f.excerpt ?? f.content ?? '',
      });
    } else w.itemsOverCap++;
    w.item = null;
  }
  w.depth--;
}

/** An RSS 2.0 / RSS 1.0 (RDF) / Atom document → the raw fields of at most `maxItems` items, or why not. */
export function parseXmlFeed(xml: string, budget: ParseBudget, maxItems: number) {
  const over = budgetClock(budget);
  const w: Walk = { format: null, depth: 0, title: null, item: null, capture: null, items: [], itemsOverCap: 0 };
  const parser = new SaxesParser({ xmlns: false, position: true });
  Object.assign(parser.ENTITIES, HTML_ENTITIES);
  parser.on('error', () => {
    // Before the root element a parse error means "not XML at all" (an HTML page, say), which is no feed. The
    // parser's message is not passed on: it quotes the document (tag names), which is untrusted text.
    throw new Abort(
      w.format === null
        ? { code: 'unknown_feed_format', params: {} }
        : { code: 'invalid_xml', params: { line: parser.line, column: parser.column } },
    );
  });
  parser.on('opentag', (tag) => onOpen(w, tag, budget));
  parser.on('text', (t) => onText(w, t));
  parser.on('cdata', (t) => onText(w, t));
  parser.on('closetag', () => onClose(w, maxItems));
  try {
    for (let i = 0; i < xml.length; i += CHUNK_CHARS) {
      parser.write(xml.slice(i, i + CHUNK_CHARS));
      const slow = over();
      if (slow) return { ok: false, detail: slow } as const;
    }
    parser.close();
  } catch (err) {
    if (err instanceof Abort) return { ok: false, detail: err.detail } as const;
    throw err;
  }
  if (w.format === null) return { ok: false, detail: { code: 'unknown_feed_format', params: {} } } as const;
  return { ok: true, format: w.format, title: w.title ?? '', items: w.items, itemsOverCap: w.itemsOverCap } as const;
}
