// Pure: the iCalendar (RFC 5545) document of recorded and announced resets, written by ical-generator (CRLF, lines
// folded at 75 octets, VERSION, PRODID). UIDs are the event ids, identical in every language; an announcement takes
// the id its recorded reset will have, so a subscribed calendar updates the one event in place when it lands.
import ical, { ICalCalendarMethod } from 'ical-generator';
import type { TFunction } from 'i18next';
import type { Lang } from '../model/schemas.ts';
import type { FollowEntry } from './follow.ts';

export const CALENDAR_UID_DOMAIN = 'reset-status-api';
/** A reset is an instant; calendars show zero-length events poorly, so each one lasts this long. */
export const CALENDAR_EVENT_MS = 30 * 60 * 1000;

/**
 * How often a subscribed calendar should fetch it again (REFRESH-INTERVAL, RFC 7986, and X-PUBLISHED-TTL): the
 * builder runs every 15 minutes.
 */
export const CALENDAR_REFRESH_SECONDS = 15 * 60;

export const calendarUid = (id: string): string => `${id}@${CALENDAR_UID_DOMAIN}`;
/**
 * The original text in a calendar event, cut to this many characters: calendars show a few lines, the feed and the
 * event document keep it whole, and ical-generator's line folding costs time per octet (most of a build's calendar time).
 */
export const CALENDAR_TEXT_MAX_CHARS = 500;

function excerpt(text: string): string {
  if (text.length <= CALENDAR_TEXT_MAX_CHARS) return text;
  const cut = text.slice(0, CALENDAR_TEXT_MAX_CHARS - 1);
  return `${/[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut}…`;
}

export interface CalendarInput {
  lang: Lang;
  t: TFunction;
  /** Only entries with a time: recorded resets and announcements with scheduled_for. */
  entries: readonly FollowEntry[];
}

/** When the calendar's content last changed: the newest `updated` among its entries (the epoch for none). */
export function calendarStamp(entries: readonly FollowEntry[]): Date {
  return new Date(entries.reduce((max, e) => Math.max(max, e.updated.getTime()), 0));
}

export function renderCalendar(input: CalendarInput): string {
  const { lang, t } = input;
  const cal = ical({
    name: t('follow:calendar.name'),
    description: input.entries.some((e) => e.fromTracker)
      ? `${t('follow:calendar.description')} ${t('follow:credit')}`
      : t('follow:calendar.description'),
    prodId: { company: 'reset-status-api', product: 'calendar', language: lang.toUpperCase() },
    method: ICalCalendarMethod.PUBLISH,
    ttl: CALENDAR_REFRESH_SECONDS,
  });
  // Under METHOD:PUBLISH, DTSTAMP is when this instance of the calendar object was created (RFC 5545 3.8.7.2): the
  // calendar's content time, the newest entry's news (as the feeds' `updated`), not each event's own time and not
  // the clock, so the bytes change only with the content.
  const stamp = calendarStamp(input.entries);
  for (const e of input.entries) {
    cal.createEvent({
      id: calendarUid(e.id),
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
