// Real parsers for the follow-it formats, shared by the tests that check them.
import { XMLParser } from 'fast-xml-parser';
import ICAL from 'ical.js';
import { z } from 'zod';

export const ATOM_NS = 'http://www.w3.org/2005/Atom';
export const SVG_NS = 'http://www.w3.org/2000/svg';

const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  isArray: (name) => name === 'entry' || name === 'link',
});

/** Parses an Atom document; throws unless its root is `feed` in the Atom namespace. */
export function parseAtom(text: string): { feed: Record<string, unknown>; entries: Record<string, any>[] } {
  const doc = xml.parse(text, true) as Record<string, any>;
  const feed = doc.feed as Record<string, any> | undefined;
  if (!feed || feed['@_xmlns'] !== ATOM_NS) throw new Error('not an Atom feed');
  return { feed, entries: (feed.entry ?? []) as Record<string, any>[] };
}

export function parseSvg(text: string): Record<string, any> {
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_' }).parse(text, true) as Record<
    string,
    any
  >;
  if (!doc.svg || doc.svg['@_xmlns'] !== SVG_NS) throw new Error('not an SVG document');
  return doc.svg as Record<string, any>;
}

/** JSON Feed 1.1 (https://www.jsonfeed.org/version/1.1/): the required fields and the types of those used. */
export const JsonFeed11Schema = z.looseObject({
  version: z.literal('https://jsonfeed.org/version/1.1'),
  title: z.string().min(1),
  home_page_url: z.url().optional(),
  feed_url: z.url().optional(),
  language: z.string().optional(),
  authors: z.array(z.looseObject({ name: z.string().optional(), url: z.string().optional() })).optional(),
  items: z.array(
    z
      .looseObject({
        id: z.string().min(1),
        url: z.url().optional(),
        title: z.string().optional(),
        summary: z.string().optional(),
        content_html: z.string().optional(),
        content_text: z.string().optional(),
        date_published: z.iso.datetime().optional(),
        date_modified: z.iso.datetime().optional(),
      })
      .refine(
        (i) => i.content_html !== undefined || i.content_text !== undefined,
        'an item needs content_html or content_text',
      ),
  ),
});

/** The shields.io endpoint badge schema (https://shields.io/badges/endpoint-badge). */
export const ShieldsEndpointSchema = z
  .object({
    schemaVersion: z.literal(1),
    label: z.string(),
    message: z.string().min(1),
    color: z.string().optional(),
    labelColor: z.string().optional(),
    isError: z.boolean().optional(),
    namedLogo: z.string().optional(),
    logoSvg: z.string().optional(),
    logoColor: z.string().optional(),
    style: z.string().optional(),
    cacheSeconds: z.number().int().optional(),
  })
  .strict();

/** Parses an iCalendar document with ical.js; returns the calendar and its events. */
export function parseCalendar(text: string): { cal: ICAL.Component; events: ICAL.Component[] } {
  const cal = new ICAL.Component(ICAL.parse(text));
  return { cal, events: cal.getAllSubcomponents('vevent') };
}

/** RFC 5545 3.1: every line ends in CRLF and is at most 75 octets. */
export function icsLineViolations(text: string): string[] {
  const bad: string[] = [];
  if (!text.endsWith('\r\n')) bad.push('the last line does not end in CRLF');
  if (/[^\r]\n/.test(text)) bad.push('bare LF');
  for (const line of text.slice(0, -2).split('\r\n'))
    if (Buffer.byteLength(line, 'utf8') > 75) bad.push(`over 75 octets: ${line.slice(0, 30)}`);
  return bad;
}
