// Pure: the follow-it documents of one build (Atom, JSON Feed, iCalendar, badge) in every language, and the entries
// they share: recorded resets (global and banked) and the announced reset, newest first, with stable ids.
import type { TFunction } from 'i18next';
import {
  CACHE_CONTROL,
  FOLLOW_DOCUMENTS,
  followDocumentKey,
  unknownBadgeKey,
  type FollowDocumentName,
} from '../contract.ts';
import { eventMs } from '../model/events.ts';
import { LANGS, type Announcement, type Event, type Lang } from '../model/schemas.ts';
import type { TodayStatus } from '../model/status.ts';
import { PHASE, type OutputDocument } from './output.ts';
import { renderBadge } from './badge.ts';
import { renderCalendar } from './calendar.ts';
import { renderEvent } from './documents.ts';
import { renderAtom, renderJsonFeed } from './feeds.ts';
import { translator } from './i18n.ts';
import { announcementSummary, announcementTypeName } from './upcoming.ts';

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
  return {
    kind: 'reset',
    id: e.id,
    title: r.title,
    // Whom it reached and when it lands, as the event document says it ("all paid plans · lands by ...").
    summary: r.reach === null ? r.summary : `${r.summary} — ${r.reach.summary}`,
    text: e.evidence_text,
    at: new Date(eventMs(e)),
    updated: new Date(eventMs(e)),
    allDay: e.time_precision === 'day',
    scheduled: true,
    link: `${base}/${lang}/#${eventAnchor(e.id)}`,
    json: `${base}/api/events/${e.id}?lang=${lang}`,
    sourceUrl: e.sources[0]?.url ?? null,
    fromTracker: e.origin === 'service_resets',
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
    return (['badge.json', 'badge.svg'] as const).map((name) => ({
      key: unknownBadgeKey(lang, name),
      body: name === 'badge.json' ? badge.json : badge.svg,
      contentType: FOLLOW_DOCUMENTS[name],
      contentLanguage: lang,
      cacheControl: CACHE_CONTROL,
      phase: PHASE.lists,
    }));
  });
}

export function renderFollow(input: FollowInput): OutputDocument[] {
  const docs: OutputDocument[] = [];
  const add = (lang: Lang, name: FollowDocumentName, body: string) =>
    docs.push({
      key: followDocumentKey(lang, name),
      body,
      contentType: FOLLOW_DOCUMENTS[name],
      contentLanguage: lang,
      cacheControl: CACHE_CONTROL,
      phase: PHASE.lists,
    });
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
    add(lang, 'calendar.ics', renderCalendar({ lang, t, entries: all.filter((e) => e.scheduled) }));
    const badge = renderBadge(input.today.state, t);
    add(lang, 'badge.json', badge.json);
    add(lang, 'badge.svg', badge.svg);
  }
  return docs;
}
