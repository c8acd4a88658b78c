// The follow-it endpoints' part of the OpenAPI document: same `lang` parameter, errors and contract headers as the
// JSON endpoints, each with its own media type.
import { FOLLOW_DOCUMENTS, type FollowDocumentName } from '../contract.ts';
import type { PathSpec } from './openapi.ts';

const mediaType = (name: FollowDocumentName) => FOLLOW_DOCUMENTS[name].split(';')[0]!;
const body = (name: FollowDocumentName, schema: Record<string, unknown>) => ({ [mediaType(name)]: { schema } });

const BADGE_SCHEMA = {
  type: 'object',
  description: 'The shields.io endpoint badge schema (https://shields.io/badges/endpoint-badge).',
  required: ['schemaVersion', 'label', 'message', 'color'],
  properties: {
    schemaVersion: { const: 1 },
    label: { type: 'string' },
    message: { type: 'string' },
    color: { type: 'string' },
  },
};

export const FOLLOW_PATHS: PathSpec[] = [
  {
    path: '/api/feed.atom',
    id: 'feedAtom',
    tag: 'Follow',
    summary: 'Atom feed of recorded and announced resets',
    description:
      "Atom (RFC 4287): the announced reset (if any) and the 50 most recent global resets and banked grants, newest first. Entry ids are tag URIs, the same in every language. Stable: `updated` is the newest entry's time.",
    body: body('feed.atom', { type: 'string', description: 'An Atom document.' }),
  },
  {
    path: '/api/feed.json',
    id: 'feedJson',
    tag: 'Follow',
    summary: 'JSON Feed 1.1 of recorded and announced resets',
    description:
      'JSON Feed 1.1 (https://www.jsonfeed.org/version/1.1/) with the same items and ids as the Atom feed. Stable.',
    body: body('feed.json', {
      type: 'object',
      required: ['version', 'title', 'items'],
      properties: {
        version: { const: 'https://jsonfeed.org/version/1.1' },
        title: { type: 'string' },
        language: { type: 'string' },
        items: {
          type: 'array',
          items: {
            type: 'object',
            required: ['id'],
            properties: {
              id: { type: 'string' },
              url: { type: 'string' },
              title: { type: 'string' },
              content_html: { type: 'string' },
            },
          },
        },
      },
    }),
  },
  {
    path: '/api/calendar.ics',
    id: 'calendar',
    tag: 'Follow',
    summary: 'iCalendar of recorded resets and announced resets with a time',
    description:
      'iCalendar (RFC 5545): one event per recorded reset and per announced reset with `scheduled_for`; UIDs are `<id>@reset-status-api`, the same in every language, and an announcement keeps its UID once its reset is recorded. Stable.',
    body: body('calendar.ics', { type: 'string', description: 'An iCalendar document.' }),
  },
  {
    path: '/api/badge.json',
    id: 'badgeJson',
    tag: 'Follow',
    summary: "Today's state as a shields.io endpoint badge",
    description: "Today's state in the language. Live, like /api/latest.",
    body: body('badge.json', BADGE_SCHEMA),
  },
  {
    path: '/api/badge.svg',
    id: 'badgeSvg',
    tag: 'Follow',
    summary: "Today's state as an SVG badge",
    description: 'The same badge as a self-contained SVG. Live.',
    body: body('badge.svg', { type: 'string', description: 'An SVG image.' }),
  },
];
