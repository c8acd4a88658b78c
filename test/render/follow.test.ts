// The follow-it renderers on hostile and edge-case input, read back with real parsers.
import { describe, expect, it } from 'vitest';
import { EventSchema, type Announcement, type Event } from '../../builder/model/schemas.ts';
import type { TodayStatus } from '../../builder/model/status.ts';
import { renderFollow } from '../../builder/render/follow.ts';
import { INSTANT_PATTERN } from '../../builder/contract.ts';
import { JsonFeed11Schema, parseAtom, parseCalendar, parseSvg, ShieldsEndpointSchema } from '../helpers/follow.ts';

const HOSTILE = 'Reset ]]> <script>alert(1)</script> & "quotes" \u0001\u0008 done \uD800';
const event: Event = EventSchema.parse({
  id: 'sr-hostile',
  type: 'global_reset',
  status: 'archived',
  reason: 'other',
  origin: 'service_resets',
  time_precision: 'second',
  time_basis: 'observation',
  announced_at: null,
  observed_at: '2026-11-21T08:00:00Z',
  effective_at: null,
  title: { en: 'Limits <b>reset</b> & ]]> more' },
  evidence_text: HOSTILE,
  sources: [{ platform: 'web', url: 'https://example.com/a?x=1&y=2' }],
});
const dayEvent: Event = EventSchema.parse({
  ...event,
  id: 'ledger-day',
  origin: 'ledger',
  time_precision: 'day',
  observed_at: '2026-11-01',
  title: undefined,
  evidence_text: 'Day record.',
});
const today = (state: TodayStatus['state']): TodayStatus => ({
  date: '2026-11-21',
  state,
  reset: null,
  event_ids: [],
  last_good_check_at: null,
  valid_until: null,
  explanation: { code: 'x', params: {} },
});
const unscheduled: Announcement = {
  id: 'sr-soon',
  upstream_id: 'soon',
  type: null,
  announced_at: '2026-11-21T11:00:00Z',
  scheduled_for: null,
  text: 'Something soon.',
  source: { platform: 'X', url: 'https://x.com/a/status/1' },
  first_seen_at: '2026-11-21T11:00:00Z',
};

const scheduled: Announcement = { ...unscheduled, scheduled_for: '2026-11-21T17:00:00Z' };

const render = (state: TodayStatus['state'] = 'recorded_today', upcoming: Announcement | null = unscheduled) =>
  new Map(
    renderFollow({
      events: [event, dayEvent],
      upcoming,
      today: today(state),
      publicUrl: 'https://api.example.test/',
    }).map((d) => [d.key, d]),
  );
const decodeHtml = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');

describe('renderFollow', () => {
  it('keeps hostile text inside its element: Atom parses and the title reads back as written', () => {
    const docs = render();
    const { entries } = parseAtom(docs.get('api/en/feed.atom')!.body);
    const e = entries.find((x) => x.id.endsWith('/sr-hostile'))!;
    expect(decodeHtml(String(e.title['#text'] ?? e.title))).toBe('Limits <b>reset</b> & ]]> more');
    const content = decodeHtml(String(e.content['#text'] ?? e.content));
    expect(content).toContain('Reset ]]> <script>alert(1)</script> & "quotes"  done ');
    expect(JSON.stringify(entries)).not.toMatch(/[\u0001\u0008]/);
  });

  it('JSON Feed titles are plain text; iCalendar keeps the text in its SUMMARY', () => {
    const docs = render();
    const feed = JsonFeed11Schema.parse(JSON.parse(docs.get('api/en/feed.json')!.body));
    expect(feed.items.find((i) => i.id.endsWith('/sr-hostile'))!.title).toBe('Limits <b>reset</b> & ]]> more');
    const { events } = parseCalendar(docs.get('api/en/calendar.ics')!.body);
    const ev = events.find((x) => x.getFirstPropertyValue('uid') === 'sr-hostile@reset-status-api')!;
    expect(ev.getFirstPropertyValue('summary')).toBe('Limits <b>reset</b> & ]]> more');
    expect(ev.getFirstPropertyValue('url')).toBe('https://api.example.test/en/#event-sr-hostile');
  });

  it('a day-precision record is an all-day event; an announcement without a time is in the feeds but not the calendar', () => {
    const docs = render();
    const { events } = parseCalendar(docs.get('api/de/calendar.ics')!.body);
    expect(events.map((e) => e.getFirstPropertyValue('uid')).sort()).toEqual([
      'ledger-day@reset-status-api',
      'sr-hostile@reset-status-api',
    ]);
    const day = events.find((e) => e.getFirstPropertyValue('uid') === 'ledger-day@reset-status-api')!;
    expect(String(day.getFirstPropertyValue('dtstart'))).toBe('2026-11-01');
    const { entries } = parseAtom(docs.get('api/de/feed.atom')!.body);
    expect(entries[0]!.id).toBe('tag:reset-status-api,2026:announcement/sr-soon');
  });

  it('the same input gives the same bytes; feed updated is the newest entry, not the clock', () => {
    const a = render();
    const b = render();
    for (const [k, d] of a) expect(b.get(k)!.body, k).toBe(d.body);
    expect(parseAtom(a.get('api/en/feed.atom')!.body).feed.updated).toBe('2026-11-21T11:00:00Z');
  });

  it('Atom to the letter: xml:lang on the feed, every time to the second, the page anchor as the HTML alternate and the JSON document as the JSON alternate', () => {
    const docs = render();
    for (const lang of ['en', 'ko'] as const) {
      const { feed, entries } = parseAtom(docs.get(`api/${lang}/feed.atom`)!.body);
      expect(feed['@_xml:lang']).toBe(lang);
      expect(String(feed.updated)).toMatch(INSTANT_PATTERN);
      const e = entries.find((x) => x.id.endsWith('/sr-hostile'))!;
      for (const k of ['updated', 'published']) expect(String(e[k]), k).toMatch(INSTANT_PATTERN);
      const links = (e.link as Record<string, string>[]).map((l) => [l['@_rel'], l['@_type'], l['@_href']]);
      expect(links).toEqual([
        ['alternate', 'text/html', `https://api.example.test/${lang}/#event-sr-hostile`],
        ['alternate', 'application/json', `https://api.example.test/api/events/sr-hostile?lang=${lang}`],
      ]);
      const announcement = entries.find((x) => x.id.endsWith('/sr-soon'))!;
      expect((announcement.link as Record<string, string>[]).map((l) => l['@_href'])).toEqual([
        `https://api.example.test/${lang}/#upcoming`,
        `https://api.example.test/api/latest?lang=${lang}`,
      ]);
    }
  });

  it('JSON Feed 1.1 to the letter: authors only (no deprecated author), url the page anchor, external_url the JSON document, dates to the second', () => {
    const raw = JSON.parse(render().get('api/de/feed.json')!.body) as Record<string, unknown>;
    expect(raw).not.toHaveProperty('author');
    const feed = JsonFeed11Schema.parse(raw);
    expect(feed.authors).toEqual([{ name: 'Reset Status API', url: 'https://api.example.test/api/' }]);
    expect(feed.home_page_url).toBe('https://api.example.test/de/');
    const item = feed.items.find((i) => i.id.endsWith('/sr-hostile'))!;
    expect(item).not.toHaveProperty('author');
    expect(item.url).toBe('https://api.example.test/de/#event-sr-hostile');
    expect(item['external_url']).toBe('https://api.example.test/api/events/sr-hostile?lang=de');
    expect(item.date_modified).toBe('2026-11-21T08:00:00Z');
    for (const i of feed.items)
      for (const k of ['date_published', 'date_modified'] as const)
        if (i[k] !== undefined) expect(i[k]).toMatch(INSTANT_PATTERN);
  });

  it('iCalendar to the letter: DTSTAMP is the calendar content time (the newest entry), not each event time and not the clock; REFRESH-INTERVAL and X-PUBLISHED-TTL of 15 minutes', () => {
    const body = render('recorded_today', scheduled).get('api/en/calendar.ics')!.body;
    const { cal, events } = parseCalendar(body);
    expect(cal.getFirstProperty('refresh-interval')!.type).toBe('duration');
    expect(String(cal.getFirstPropertyValue('refresh-interval'))).toBe('PT15M');
    expect(String(cal.getFirstPropertyValue('x-published-ttl'))).toBe('PT15M');
    expect(cal.getFirstPropertyValue('method')).toBe('PUBLISH');
    // The announcement (news at 11:00) is the newest content; the reset happened at 08:00, the day record on Nov 1.
    const stamps = events.map((e) =>
      (e.getFirstPropertyValue('dtstamp') as { toJSDate(): Date }).toJSDate().toISOString(),
    );
    expect(stamps).toEqual(events.map(() => '2026-11-21T11:00:00.000Z'));
    const starts = events.map((e) => String(e.getFirstPropertyValue('dtstart')));
    expect(starts).toContain('2026-11-21T08:00:00Z');
    // Stable while the content is: the same input a day later gives the same bytes.
    expect(render('recorded_today', scheduled).get('api/en/calendar.ics')!.body).toBe(body);
    // Content changes (no announcement): the stamp follows the content, back to the newest remaining entry.
    const { events: without } = parseCalendar(render('recorded_today', null).get('api/en/calendar.ics')!.body);
    expect((without[0]!.getFirstPropertyValue('dtstamp') as { toJSDate(): Date }).toJSDate().toISOString()).toBe(
      '2026-11-21T08:00:00.000Z',
    );
  });

  it('the badge says each state in the language with its colour, in the shields schema and as an SVG', () => {
    const colours = {
      confirmed_today: 'brightgreen',
      recorded_today: 'green',
      no_verified_reset: 'blue',
      unknown: 'lightgrey',
    } as const;
    for (const [state, colour] of Object.entries(colours) as [TodayStatus['state'], string][]) {
      const docs = render(state);
      const en = ShieldsEndpointSchema.parse(JSON.parse(docs.get('api/en/badge.json')!.body));
      const ko = ShieldsEndpointSchema.parse(JSON.parse(docs.get('api/ko/badge.json')!.body));
      expect(en.color).toBe(colour);
      expect(ko.message).not.toBe(en.message);
      expect(
        parseSvg(docs.get('api/ko/badge.svg')!.body)['@_aria-label'] ??
          JSON.stringify(parseSvg(docs.get('api/ko/badge.svg')!.body)),
      ).toContain(ko.message);
    }
  });

  it('refuses a public URL that is not absolute http(s)', () => {
    expect(() =>
      renderFollow({ events: [], upcoming: null, today: today('unknown'), publicUrl: 'api.example.test' }),
    ).toThrow(/\[render\/follow\] the public URL/);
  });
});
