// Pure: the follow-it documents of one build (Atom, JSON Feed, iCalendar, badge) in every language, and the entries
// they share: recorded resets (global and banked) and the announced reset, newest first, with stable ids.
import { makeBadge } from 'badge-maker';
import ical, { ICalCalendarMethod } from 'ical-generator';
import type { TFunction } from 'i18next';
import {
  FOLLOW_DOCUMENTS,
  followDocumentKey,
  unknownBadgeKey,
  type FollowDocumentName,
  LANGS,
  type Lang,
} from '../contract.ts';
import { eventMs } from '../model/events.ts';
import type { Announcement, Event } from '../model/schemas.ts';
import type { TodayState, TodayStatus } from '../model/status.ts';
import { outputDoc, PHASE, type OutputDocument } from './output.ts';
import { fromTracker } from './values.ts';
import { renderEvent } from './documents.ts';
import { renderAtom, renderJsonFeed } from './feeds.ts';
import { translator } from './i18n.ts';
import { announcementSummary, announcementTypeName } from './reach.ts';

/** Enough for any reader to catch up; older entries stay in /api/history. */
export const FEED_MAX_ENTRIES = 50;
export const CALENDAR_MAX_EVENTS = 500;

export interface FollowInput {
  events: readonly Event[];
  upcoming: Announcement | null;
  today: TodayStatus;
  /** Absolute base URL the API is served from, without a trailing slash. */
  publicUrl: string;
}

/** One entry of the feeds and the calendar, already in one language. */
export interface FollowEntry {
  kind: 'reset' | 'announcement';
  /** The event or announcement id; an announcement takes the id its recorded reset will have. */
  id: string;
  title: string;
  summary: string;
  /** The original words (evidence or announcement), never translated. */
  text: string;
  /** When it happened, or is to happen (an announcement's scheduled_for): the calendar event's time. */
  at: Date;
  /** When the entry's news appeared (an announcement's announced_at): feed order, `updated` and DTSTAMP. */
  updated: Date;
  /** `day`: an all-day calendar event. */
  allDay: boolean;
  /** Whether the time is when it happened (a reset) or is to happen (an announcement with scheduled_for). */
  scheduled: boolean;
  /** The human page, at the entry's anchor: what a person following the feed or calendar opens. */
  link: string;
  /** The entry's JSON document (the event, or /api/latest for an announcement): the alternate link. */
  json: string;
  sourceUrl: string | null;
  /** From the upstream tracker's API (a tracker record, or its announcement): the feed and calendar credit it. */
  fromTracker: boolean;
}

/** The page's anchor for a listed event (page-charts.tsx writes it): `/<lang>/#event-<id>`. */
export const eventAnchor = (id: string): string => `event-${id}`;
/** The page's section for the announced reset. */
export const UPCOMING_ANCHOR = 'upcoming';

const FOLLOWED_TYPES: readonly Event['type'][] = ['global_reset', 'banked_grant'];

function resetEntry(e: Event, lang: Lang, t: TFunction, base: string): FollowEntry {
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
    fromTracker: fromTracker(e),
  };
}

function announcementEntry(a: Announcement, lang: Lang, t: TFunction, base: string): FollowEntry {
  return {
    kind: 'announcement',
    id: a.id,
    title: t('follow:feed.announcement_title', { type: announcementTypeName(a, t) }),
    summary: announcementSummary(a, t),
    text: a.text,
    at: new Date(a.scheduled_for ?? a.announced_at),
    updated: new Date(a.announced_at),
    allDay: false,
    scheduled: a.scheduled_for !== null,
    link: `${base}/${lang}/#${UPCOMING_ANCHOR}`,
    json: `${base}/api/latest?lang=${lang}`,
    sourceUrl: a.source?.url ?? null,
    fromTracker: true,
  };
}

/** The recorded resets the feeds and the calendar follow, newest first (the events come newest first). */
export function followedEvents(events: readonly Event[], max: number): Event[] {
  return events.filter((e) => FOLLOWED_TYPES.includes(e.type)).slice(0, max);
}

/** The entries in one language, newest first: the announcement (if any) then recorded resets. */
export function computeFollowEntries(input: FollowInput, lang: Lang, t: TFunction, max: number): FollowEntry[] {
  const resets = followedEvents(input.events, max);
  const entries = resets.map((e) => resetEntry(e, lang, t, input.publicUrl));
  if (input.upcoming) entries.unshift(announcementEntry(input.upcoming, lang, t, input.publicUrl));
  return entries
    .sort((a, b) => b.updated.getTime() - a.updated.getTime() || a.id.localeCompare(b.id))
    .slice(0, max + 1);
}

/** The badges the edge serves once the build's answer no longer holds: `unknown`, in every language. */
export function renderUnknownBadges(): OutputDocument[] {
  return LANGS.flatMap((lang) => {
    const badge = renderBadge('unknown', translator(lang));
    return (['badge.json', 'badge.svg'] as const).map((name) =>
      outputDoc(unknownBadgeKey(lang, name), badge[name], lang, PHASE.lists, FOLLOW_DOCUMENTS[name]),
    );
  });
}

export function renderFollow(input: FollowInput): OutputDocument[] {
  const docs: OutputDocument[] = [];
  const add = (lang: Lang, name: FollowDocumentName, body: string) =>
    docs.push(outputDoc(followDocumentKey(lang, name), body, lang, PHASE.lists, FOLLOW_DOCUMENTS[name]));
  const base = input.publicUrl.replace(/\/+$/, '');
  if (!/^https?:\/\/[^/?#\s]+(\/[^?#\s]*)?$/.test(base))
    throw new Error(
      `[render/follow] the public URL must be an absolute http(s) URL without query, got ${JSON.stringify(input.publicUrl)}`,
    );
  const fixed = { ...input, publicUrl: base };
  for (const lang of LANGS) {
    const t = translator(lang);
    const all = computeFollowEntries(fixed, lang, t, CALENDAR_MAX_EVENTS);
    const feed = { lang, t, base, entries: all.slice(0, FEED_MAX_ENTRIES + (fixed.upcoming ? 1 : 0)) };
    add(lang, 'feed.atom', renderAtom(feed));
    add(lang, 'feed.json', renderJsonFeed(feed));
    add(
      lang,
      'calendar.ics',
      renderCalendar(
        lang,
        t,
        all.filter((e) => e.scheduled),
      ),
    );
    const badge = renderBadge(input.today.state, t);
    add(lang, 'badge.json', badge['badge.json']);
    add(lang, 'badge.svg', badge['badge.svg']);
  }
  return docs;
}

const BADGE_COLORS: Record<TodayState, string> = {
  confirmed_today: 'brightgreen',
  recorded_today: 'green',
  no_verified_reset: 'blue',
  unknown: 'lightgrey',
};

/** Today's state as a shields.io endpoint badge (schemaVersion 1, label, message, color) and as an SVG. */
function renderBadge(state: TodayState, t: TFunction): Record<'badge.json' | 'badge.svg', string> {
  const badge = { label: t('follow:badge.label'), message: t(`follow:badge.${state}`), color: BADGE_COLORS[state] };
  return { 'badge.json': JSON.stringify({ schemaVersion: 1, ...badge }), 'badge.svg': makeBadge(badge) };
}

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
    description: entries.some((e) => e.fromTracker)
      ? `${t('follow:calendar.description')} ${t('follow:credit')}`
      : t('follow:calendar.description'),
    prodId: { company: 'reset-status-api', product: 'calendar', language: lang.toUpperCase() },
    method: ICalCalendarMethod.PUBLISH,
    // REFRESH-INTERVAL (RFC 7986) and X-PUBLISHED-TTL: the builder runs every 15 minutes.
    ttl: 15 * 60,
  });
  // Under METHOD:PUBLISH, DTSTAMP is when this instance of the calendar object was created (RFC 5545 3.8.7.2): the
  // calendar's content time, the newest entry's news (as the feeds' `updated`), not each event's own time and not
  // the clock, so the bytes change only with the content.
  const stamp = new Date(entries.reduce((max, e) => Math.max(max, e.updated.getTime()), 0));
  for (const e of entries) {
    cal.createEvent({
      id: `${e.id}@reset-status-api`,
      stamp,
      start: e.at,
      ...(e.allDay ? { allDay: true } : { end: new Date(e.at.getTime() + CALENDAR_EVENT_MS) }),
      summary: e.title,
      description: `${e.summary}\n\n${excerpt(e.text)}${e.sourceUrl ? `\n\n${e.sourceUrl}` : ''}`,
      url: e.link,
    });
  }
  // RFC 5545 ends every content line, the last one too, with CRLF; the library leaves the last one bare.
  const text = cal.toString();
  return text.endsWith('\r\n') ? text : `${text}\r\n`;
}
