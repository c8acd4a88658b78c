// Pure: the follow-it documents of one build in every language: Atom and JSON Feed (written by the `feed` library),
// iCalendar (ical-generator) and the badge (badge-maker). Feeds and calendar share their entries: recorded resets
// (global and banked) and the announced reset, newest first, with stable ids.
import { makeBadge } from 'badge-maker';
import { Feed } from 'feed';
import ical, { ICalCalendarMethod } from 'ical-generator';
import type { TFunction } from 'i18next';
import {
  FOLLOW_DOCUMENTS,
  followDocumentKey,
  formatInstant,
  unknownBadgeKey,
  type FollowDocumentName,
  LANGS,
  type Lang,
} from '../contract.ts';
import { eventMs } from '../model/events.ts';
import type { Announcement, Event } from '../model/schemas.ts';
import type { TodayState, TodayStatus } from '../model/status.ts';
import { outputDoc, PHASE, type OutputDocument } from './output.ts';
import { announcementDataOf, creditLine, creditsFor, dataOf } from './values.ts';
import { renderEvent } from './documents.ts';
import { translator } from './i18n.ts';
import { announcementSummary, announcementTypeName } from './reach.ts';

/** Enough for any reader to catch up; older entries stay in /api/history. */
export const FEED_MAX_ENTRIES = 50;
const CALENDAR_MAX_EVENTS = 500;

interface FollowInput {
  events: readonly Event[];
  upcoming: Announcement | null;
  today: TodayStatus;
  /** Absolute base URL the API is served from. */
  publicUrl: string;
}

/** The page's anchor for a listed event (page-charts.tsx writes it): `/<lang>/#event-<id>`. */
export const eventAnchor = (id: string): string => `event-${id}`;

/** The recorded resets the feeds and the calendar follow, newest first (the events come newest first). */
export const followedEvents = (events: readonly Event[], max: number): Event[] =>
  events.filter((e) => e.type === 'global_reset' || e.type === 'banked_grant').slice(0, max);

/**
 * The entries of the feeds and the calendar in one language, newest first by their news time (`updated`, also the
 * feeds' `updated` and DTSTAMP): the recorded resets and the announcement (if any). An announcement takes the id its
 * recorded reset will have; its `at` is its scheduled_for, and only a real time (`scheduled`) goes in the calendar.
 * `link` is the human page's anchor a follower opens, `json` the entry's document (the alternate link); `text` is the
 * original words, never translated; `tracker`/`timeline`: the entry shows that tracker's data, which the feeds then credit.
 */
function followEntries(input: FollowInput, lang: Lang, t: TFunction, base: string) {
  const entries = followedEvents(input.events, CALENDAR_MAX_EVENTS).map((e) => {
    const r = renderEvent(e, lang, t);
    const at = new Date(eventMs(e));
    return {
      kind: 'reset',
      id: e.id,
      title: r.title,
      // Whom it reached and when it lands, as the event document says it ("all paid plans · lands by ...").
      summary: r.reach === null ? r.summary : `${r.summary} — ${r.reach.summary}`,
      text: e.evidence_text,
      at,
      updated: at,
      allDay: e.time_precision === 'day',
      scheduled: true,
      link: `${base}/${lang}/#${eventAnchor(e.id)}`,
      json: `${base}/api/events/${e.id}?lang=${lang}`,
      sourceUrl: e.sources[0]?.url ?? null,
      ...dataOf(e),
    };
  });
  const a = input.upcoming;
  if (a)
    entries.unshift({
      kind: 'announcement',
      id: a.id,
      title: t('follow:feed.announcement_title', { type: announcementTypeName(a, t) }),
      summary: announcementSummary(a, t),
      text: a.text,
      at: new Date(a.scheduled_for ?? a.announced_at),
      updated: new Date(a.announced_at),
      allDay: false,
      scheduled: a.scheduled_for !== null,
      link: `${base}/${lang}/#upcoming`,
      json: `${base}/api/latest?lang=${lang}`,
      sourceUrl: a.source?.url ?? null,
      ...announcementDataOf(a),
    });
  return entries.sort((x, y) => y.updated.getTime() - x.updated.getTime() || x.id.localeCompare(y.id));
}
type FollowEntry = ReturnType<typeof followEntries>[number];

const BADGES = ['badge.json', 'badge.svg'] as const;
const followDoc = (key: string, lang: Lang, name: FollowDocumentName, body: string) =>
  outputDoc(key, body, lang, PHASE.lists, FOLLOW_DOCUMENTS[name]);

/** The badges the edge serves once the build's answer no longer holds: `unknown`, in every language. */
export function renderUnknownBadges(): OutputDocument[] {
  return LANGS.flatMap((lang) => {
    const badge = renderBadge('unknown', translator(lang));
    return BADGES.map((name) => followDoc(unknownBadgeKey(lang, name), lang, name, badge[name]));
  });
}

export function renderFollow(input: FollowInput): OutputDocument[] {
  const base = input.publicUrl.replace(/\/+$/, '');
  if (!/^https?:\/\/[^/?#\s]+(\/[^?#\s]*)?$/.test(base))
    throw new Error(
      `[render/follow] the public URL must be an absolute http(s) URL without query, got ${JSON.stringify(input.publicUrl)}`,
    );
  return LANGS.flatMap((lang) => {
    const t = translator(lang);
    const all = followEntries(input, lang, t, base);
    const feed = { lang, t, base, entries: all.slice(0, FEED_MAX_ENTRIES + (input.upcoming ? 1 : 0)) };
    const calendar = all.filter((e) => e.scheduled);
    const bodies: Record<FollowDocumentName, string> = {
      'feed.atom': renderAtom(feed),
      'feed.json': renderJsonFeed(feed),
      'calendar.ics': renderCalendar(lang, t, calendar),
      ...renderBadge(input.today.state, t),
    };
    const names = Object.keys(bodies) as FollowDocumentName[];
    return names.map((name) => followDoc(followDocumentKey(lang, name), lang, name, bodies[name]));
  });
}

const BADGE_COLORS: Record<TodayState, string> = {
  confirmed_today: 'brightgreen',
  recorded_today: 'green',
  no_verified_reset: 'blue',
  unknown: 'lightgrey',
};

/** Today's state as a shields.io endpoint badge (schemaVersion 1, label, message, color) and as an SVG. */
function renderBadge(state: TodayState, t: TFunction): Record<(typeof BADGES)[number], string> {
  const badge = { label: t('follow:badge.label'), message: t(`follow:badge.${state}`), color: BADGE_COLORS[state] };
  return { 'badge.json': JSON.stringify({ schemaVersion: 1, ...badge }), 'badge.svg': makeBadge(badge) };
}

/** The text of `key`, with the credit of each tracker whose data an entry shows, worded as the tracker asks. */
const credited = (t: TFunction, key: string, entries: readonly FollowEntry[]): string => {
  const also = { tracker: entries.some((e) => e.tracker), timeline: entries.some((e) => e.timeline) };
  return [t(key), ...creditsFor([], also).map(creditLine)].join(' ');
};

/** A reset is an instant; calendars show zero-length events poorly, so each one lasts this long. */
const CALENDAR_EVENT_MS = 30 * 60 * 1000;
/**
 * The original text in a calendar event, cut to this many characters: calendars show a few lines, the feed and the
 * event document keep it whole, and ical-generator's line folding costs time per octet.
 */
const CALENDAR_TEXT_MAX_CHARS = 500;

function excerpt(text: string): string {
  if (text.length <= CALENDAR_TEXT_MAX_CHARS) return text;
  const cut = text.slice(0, CALENDAR_TEXT_MAX_CHARS - 1);
  return `${/[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut}…`;
}

/**
 * The iCalendar (RFC 5545) document of the entries with a time (recorded resets, announcements with scheduled_for),
 * written by ical-generator (CRLF, lines folded at 75 octets). UIDs are the entry ids, identical in every language; an
 * announcement takes the id its recorded reset will have, so a subscribed calendar updates the one event in place.
 */
function renderCalendar(lang: Lang, t: TFunction, entries: readonly FollowEntry[]): string {
  const cal = ical({
    name: t('follow:calendar.name'),
    description: credited(t, 'follow:calendar.description', entries),
    prodId: { company: 'reset-status-api', product: 'calendar', language: lang.toUpperCase() },
    method: ICalCalendarMethod.PUBLISH,
    // REFRESH-INTERVAL (RFC 7986) and X-PUBLISHED-TTL: the builder runs every 15 minutes.
    ttl: 15 * 60,
  });
  // Under METHOD:PUBLISH, DTSTAMP is when this instance of the calendar object was created (RFC 5545 3.8.7.2): the
  // calendar's content time, the newest entry's news (as the feeds' `updated`), not each event's own time and not
  // the clock, so the bytes change only with the content.
  const stamp = new Date(entries.reduce((max, e) => Math.max(max, e.updated.getTime()), 0));
  for (const e of entries)
    cal.createEvent({
      id: `${e.id}@reset-status-api`,
      stamp,
      start: e.at,
      ...(e.allDay ? { allDay: true } : { end: new Date(e.at.getTime() + CALENDAR_EVENT_MS) }),
      summary: e.title,
      description: `${e.summary}\n\n${excerpt(e.text)}${e.sourceUrl ? `\n\n${e.sourceUrl}` : ''}`,
      url: e.link,
    });
  // RFC 5545 ends every content line, the last one too, with CRLF; the library leaves the last one bare.
  const text = cal.toString();
  return text.endsWith('\r\n') ? text : `${text}\r\n`;
}

/** Ids are tag URIs (RFC 4151): independent of where the API is hosted, identical in every language. */
const TAG_PREFIX = 'tag:reset-status-api,2026:';

type FeedInput = { lang: Lang; t: TFunction; base: string; entries: readonly FollowEntry[] };

// Characters XML 1.0 cannot carry at all (escaped or not), and lone surrogates: upstream text may hold them.
const NOT_XML =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const xmlText = (s: string): string => s.replace(NOT_XML, '');

/** Escaped, so hostile text can neither add markup nor close the library's CDATA section (`]]>` → `]]&gt;`). */
const escapeHtml = (s: string): string =>
  xmlText(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function contentHtml(e: FollowEntry): string {
  const post = e.sourceUrl ? `<p><a href="${escapeHtml(e.sourceUrl)}">${escapeHtml(e.sourceUrl)}</a></p>` : '';
  return `<p>${escapeHtml(e.summary)}</p><blockquote>${escapeHtml(e.text)}</blockquote>${post}`;
}

/** The library's feed; `updated` is the newest entry's time (not the build time): bytes change only with content. */
function buildFeed(input: FeedInput, format: 'atom' | 'json'): Feed {
  // Atom's title and summary are `type="html"`; JSON Feed's `title` and `summary` are plain text.
  const text = format === 'atom' ? escapeHtml : xmlText;
  const { lang, t, base, entries } = input;
  const feed = new Feed({
    id: `${TAG_PREFIX}feed`,
    title: t('follow:feed.title'),
    description: credited(t, 'follow:feed.subtitle', entries),
    link: `${base}/${lang}/`,
    language: lang,
    updated: entries[0]?.updated ?? new Date(0),
    generator: 'Reset Status API',
    feedLinks: { atom: `${base}/api/feed.atom?lang=${lang}`, json: `${base}/api/feed.json?lang=${lang}` },
    // RFC 4287 wants an author on the feed when its entries have none.
    author: { name: 'Reset Status API', link: `${base}/api/` },
  });
  for (const e of entries)
    feed.addItem({
      id: `${TAG_PREFIX}${e.kind === 'reset' ? 'event' : 'announcement'}/${e.id}`,
      title: text(e.title),
      link: e.link,
      date: e.updated,
      published: e.updated,
      description: text(e.summary),
      content: contentHtml(e),
      extensions: e.sourceUrl
        ? [{ name: '_reset_status', objects: { kind: e.kind, event_id: e.id, source_url: e.sourceUrl } }]
        : [],
    });
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
function renderAtom(input: FeedInput): string {
  let xml = buildFeed(input, 'atom').atom1();
  if (!xml.includes(ATOM_ROOT))
    throw new Error('[render/follow] the feed library no longer writes the Atom root this code extends');
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
    throw new Error('[render/follow] the feed library no longer writes entry links as this code expects');
  return xml;
}

/**
 * The library writes JSON Feed 1.0; 1.1 is a superset that adds `language` and `authors`, which replaces the
 * deprecated `author` (dropped here). Items keep `id`, `url` (the human page's anchor), `title`, `summary`,
 * `content_html`, and gain `external_url`: the entry's JSON document. Dates to the second.
 */
function renderJsonFeed(input: FeedInput): string {
  const { author, items, ...doc } = JSON.parse(buildFeed(input, 'json').json1()) as Record<string, unknown> & {
    items: Record<string, unknown>[];
  };
  const feed = {
    ...doc,
    version: 'https://jsonfeed.org/version/1.1',
    language: input.lang,
    ...(author ? { authors: [author] } : {}),
    // The library writes the items in the order it was given them, each with both dates.
    items: items.map((item, i) => ({
      ...item,
      external_url: input.entries[i]!.json,
      date_published: formatInstant(item.date_published as string),
      date_modified: formatInstant(item.date_modified as string),
    })),
  };
  return JSON.stringify(feed, null, 2);
}
