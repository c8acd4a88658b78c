// A loopback server that answers as codex-resets.com, status.openai.com and reddit.com answered in September 2026:
// the captures in test/fixtures/real-upstreams/ (provenance in its README) served on their real paths with
// the statuses and headers those services send (ETag and conditional GET, Cache-Control, CORS, 403/404/429 pages).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { startLoopback, type LoopbackServer } from '../helpers/build.ts';

export const CAPTURES = path.resolve(new URL('../fixtures/real-upstreams', import.meta.url).pathname);

export const capture = (rel: string): string => readFileSync(path.join(CAPTURES, rel), 'utf8');
export const captureJson = <T = unknown>(rel: string): T => JSON.parse(capture(rel)) as T;

// The Codex group's component ids, as the captures list them (README: "The Codex components include names that do
// not start with Codex").
export const CODEX_WEB = '01JVCV8YSWZFRSM1G5CVP253SK';
export const CODEX_API = '01KMP3KP5MGE23B80K1EK4S8PV';
export const CLI = '01KMKFAMWKNQ84Z1766MV08ZDE';
export const VS_CODE = '01KMP3KP5M8X0EBTVW6KN327EE';
export const DESKTOP = '01KMKFAMWKQ81YWSE1Z18R6VHR';
export const SORA = '01K9G527YRPY1EFRMHTKB5BKT5';

export interface FeedIncident {
  id: string;
  name: string;
  status: string;
  published_at: string;
  affected_components: { component_id: string; status: string; current_status: string }[];
  component_impacts: { id: string; component_id: string; status: string; start_at: string; end_at: string | null }[];
  updates: { id: string; to_status: string; message_string: string; published_at: string }[];
}

/**
 * RECONSTRUCTED, not captured: the 2026-09-25 "Issues with Codex" incident in the feed's captured shape, built from
 * the facts the captures' README documents (22:58 to about 23:54 UTC; Codex Web, Codex API, CLI and VS Code extension
 * in full_outage). The id is invented in the ULID alphabet; the update's words are the feed's generic first update.
 * At 23:15 it is still open.
 */
export const ISSUES_WITH_CODEX_ID = '01M5X0RECNSTRVCTEDC0DEX925';
export function issuesWithCodex(): FeedIncident {
  const at = '2026-09-25T22:58:00Z';
  const down = [CODEX_WEB, CODEX_API, CLI, VS_CODE];
  return {
    id: ISSUES_WITH_CODEX_ID,
    name: 'Issues with Codex',
    status: 'investigating',
    published_at: at,
    affected_components: down.map((component_id) => ({
      component_id,
      status: 'full_outage',
      current_status: 'full_outage',
    })),
    component_impacts: down.map((component_id, n) => ({
      id: `01M5X0RECNSTRVCTED1MPACT0${n}`,
      component_id,
      status: 'full_outage',
      start_at: at,
      end_at: null,
    })),
    updates: [
      {
        id: '01M5X0RECNSTRVCTEDVPDATE00',
        to_status: 'investigating',
        message_string: 'We are investigating the issue for the listed services.',
        published_at: at,
      },
    ],
  };
}

/** What the tracker's `/resets` serves: one capture, the two-page capture joined by its cursor, or a 503 outage. */
export type ResetsReplay = { file: string } | { pages: readonly [string, string] } | 503;

/** What X's oEmbed endpoint answers for one post: an answer body, or its status (404: no such public post). */
export type OembedReplay = { body: unknown } | 404 | 429 | 403;

export interface Scenario {
  resets: ResetsReplay;
  /** `/api/v1/status`: a capture, or a body built by the test (a reconstruction it names). */
  status: string | { body: unknown };
  summary: string;
  /** incident.io's own incident feed: a capture, a body built by the test, or its 404 page. */
  incidents: string | { body: unknown } | 404;
  /** What Reddit answers on `/r/codex/new/.rss`. */
  reddit: 'feed' | 403 | 429;
  /** codex-reset.com's `/api/timeline`: a capture, a body built by the test, or a 503; absent: the source is off. */
  timeline?: string | { body: unknown } | 503;
  /** X's oEmbed answers by post id (a post not listed answers 404); absent: automatic verification is off. */
  oembed?: Readonly<Record<string, OembedReplay>>;
}

/** The timeline capture of 2026-09-11 (codex-reset.com, 59 events, byte for byte). */
export const TIMELINE_CAPTURE = 'codex-reset/timeline.2026-09-11.captured.json';
/** X's oEmbed answer for post 2097174560412246215 (2026-09-08, "All reset for everyone."), reconstructed. */
export const OEMBED_0908 = 'x-oembed/oembed.2097174560412246215.reconstructed.json';

const HTML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * RECONSTRUCTED, not captured: X's oEmbed answer for an official post of @thsottiaux in exactly the shape of the real
 * answer (x-oembed/oembed.2097174560412246215.reconstructed.json: links as `<a>`, line breaks as `<br>`, entities
 * escaped, then the author and the day in words), with `words` as the post's text. The tests take the words from what
 * the sources quote of the post (the ledger's description, codex-resets.com's text), so only the reading is tested.
 */
export function oembedAnswer(postId: string, words: string, handle = 'thsottiaux'): { body: unknown } {
  const esc = (t: string) => t.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
  const linked = esc(words)
    .replace(/https?:\/\/\S+/g, (u) => `<a href="${u}">${u}</a>`)
    .replace(/\n/g, '<br>');
  const day = new Date(Number((BigInt(postId) >> 22n) + 1288834974657n)).toLocaleDateString('en-US', {
    timeZone: 'UTC',
    year: 'numeric',
    month: 'long',
    day: 'numeric',
  });
  const url = `https://twitter.com/${handle}/status/${postId}`;
  return {
    body: {
      url,
      author_name: 'Tibo',
      author_url: `https://twitter.com/${handle}`,
      html: `<blockquote class="twitter-tweet" data-dnt="true"><p lang="en" dir="ltr">${linked}</p>&mdash; Tibo (@${handle}) <a href="${url}?ref_src=twsrc%5Etfw">${day}</a></blockquote>\n`,
      width: 550,
      height: null,
      type: 'rich',
      cache_age: '3153600000',
      provider_name: 'Twitter',
      provider_url: 'https://twitter.com',
      version: '1.0',
    },
  };
}

export const SCENARIOS = {
  /** 2026-09-29T16:30Z: 55 records on one page, a strong watch, no scheduled reset, everything operational. */
  '2026-09-29': {
    resets: { file: 'codex-resets/v1-resets.limit100.2026-09-29.json' },
    status: 'codex-resets/v1-status.2026-09-29.captured.json',
    summary: 'openai-status/summary.operational.reconstructed.json',
    incidents: 'openai-status/proxy-status.openai.com.incidents.captured.json',
    reddit: 'feed',
  },
  /** The same 55 records over two pages of 30 and 25, joined by the opaque cursor. */
  '2026-09-29-paged': {
    resets: { pages: ['codex-resets/v1-resets.limit30.page1.json', 'codex-resets/v1-resets.limit30.page2.json'] },
    status: 'codex-resets/v1-status.2026-09-29.captured.json',
    summary: 'openai-status/summary.operational.reconstructed.json',
    incidents: 'openai-status/proxy-status.openai.com.incidents.captured.json',
    reddit: 'feed',
  },
  /** 2026-09-22T12:00Z: 53 records, a reset announced for Tuesday 2026-09-23T06:59Z. */
  '2026-09-22': {
    resets: { file: 'codex-resets/v1-resets.limit100.2026-09-22.json' },
    status: 'codex-resets/v1-status.2026-09-22.scheduled.reconstructed.json',
    summary: 'openai-status/summary.operational.reconstructed.json',
    incidents: 'openai-status/proxy-status.openai.com.incidents.captured.json',
    reddit: 'feed',
  },
} as const satisfies Record<string, Scenario>;

/** The ledger's quote of every post it cites (data/archive/, the ledger's descriptions: the posts' words). */
function ledgerQuotes(): Map<string, string> {
  const archive = JSON.parse(
    readFileSync(new URL('../../data/archive/codex-reset-ledger.json', import.meta.url), 'utf8'),
  ) as { records: { evidence_text: string; sources: { url: string }[] }[] };
  const quotes = new Map<string, string>();
  for (const r of archive.records)
    for (const s of r.sources) {
      const id = /\/status\/(\d{1,20})/.exec(s.url)?.[1];
      if (id !== undefined && !quotes.has(id)) quotes.set(id, r.evidence_text);
    }
  return quotes;
}

/**
 * X's oEmbed answers for every official post the ledger cites, RECONSTRUCTED in the real answer's shape with the
 * ledger's words as the post's text (oembedAnswer), and the reconstructed answer of post 2097174560412246215 as it is.
 */
export function oembedForLedger(): Record<string, OembedReplay> {
  const answers: Record<string, OembedReplay> = {};
  for (const [id, words] of ledgerQuotes()) answers[id] = oembedAnswer(id, words);
  answers['2097174560412246215'] = { body: captureJson(OEMBED_0908) };
  return answers;
}

/**
 * RECONSTRUCTED, not captured: codex-reset.com's timeline on 2026-09-26T18:30Z, the capture of 2026-09-11 with one live
 * record in front, in the capture's shape (as its 2026-09-08 live record), for the reset codex-resets.com lists as
 * post 2103911959544610829 ("Resets all propagated. That will be all. Have a fantastic weekend.", 18:17:54Z).
 */
export function timelineOn0926(): { body: unknown } {
  const captured = captureJson<{ updated_at: string; events: unknown[] }>(TIMELINE_CAPTURE);
  const record = {
    id: '2103911959544610829',
    date: '2026-09-26',
    type: 'reset',
    group: 'reset',
    summary: 'Resets all propagated. That will be all. Have a fantastic weekend.',
    text: 'Resets all propagated. That will be all. Have a fantastic weekend.',
    url: 'https://x.com/thsottiaux/status/2103911959544610829',
    announced_at: '2026-09-26T18:17:54.000Z',
    effective_at: null,
    official_window: null,
    preview: false,
    scope: 'global',
    confidence: 'medium',
    source: 'live',
    source_label: 'Live radar feed',
    reset_kind: null,
    audience: [],
    incident_links: [],
    reason_tags: [],
    announcement_state: 'announced',
    observation_result: 'unknown',
    observation_sources: [],
    reset_verification_status: 'pending',
    time_kind: 'announcement / confirmation time',
  };
  return { body: { ...captured, updated_at: '2026-09-26T18:30:00.000Z', events: [record, ...captured.events] } };
}

/** The scenarios of a second tracker and the service's own reads (test/real-upstreams/two-trackers.test.ts). */
export const TWO_TRACKERS = {
  /** 2026-09-11T15:00Z: both trackers and the ledger; X answers for every ledger post. */
  '2026-09-11': {
    ...SCENARIOS['2026-09-22'],
    status: 'codex-resets/v1-status.2026-09-17.captured.json',
    timeline: TIMELINE_CAPTURE,
    oembed: oembedForLedger(),
  },
  /** 2026-09-26T19:00Z: codex-resets.com answers 503 while codex-reset.com lists the reset of 18:17:54Z. */
  '2026-09-26-outage': {
    ...SCENARIOS['2026-09-29'],
    resets: 503,
    timeline: timelineOn0926(),
  },
} satisfies Record<string, Scenario>;

const RESETS_CACHE = 'public, max-age=60, s-maxage=300, stale-while-revalidate=300';
const STATUS_CACHE = 'public, max-age=14400, s-maxage=60, stale-while-revalidate=300';

export interface Replay {
  server: LoopbackServer;
  /** Every request as received: method, path with query, and the User-Agent it carried. */
  requests: { path: string; userAgent: string | undefined; ifNoneMatch: string | undefined }[];
  /** The environment that points the build's sources at this server. */
  env: Record<string, string>;
  close(): Promise<void>;
}

function etagOf(body: string): string {
  return `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
}

function sendJson(req: IncomingMessage, res: ServerResponse, body: string, cacheControl: string): void {
  const etag = etagOf(body);
  const headers = {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': cacheControl,
    etag,
    'access-control-allow-origin': '*',
  };
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  res.writeHead(200, headers);
  res.end(body);
}

function sendHtml(res: ServerResponse, status: number, file: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...extra });
  res.end(capture(file));
}

const bodyOf = (v: string | { body: unknown }): string => (typeof v === 'string' ? capture(v) : JSON.stringify(v.body));

/** Starts the replay of one scenario on 127.0.0.1. */
export async function startReplay(scenario: Scenario): Promise<Replay> {
  const requests: Replay['requests'] = [];
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push({
      path: `${url.pathname}${url.search}`,
      userAgent: req.headers['user-agent'],
      ifNoneMatch: req.headers['if-none-match'],
    });
    const outage = () => {
      res.writeHead(503, { 'content-type': 'text/html; charset=utf-8', 'retry-after': '120' });
      res.end('<html><body><h1>503 Service Unavailable</h1></body></html>');
    };
    if (url.pathname === '/api/v1/resets') {
      const r = scenario.resets;
      if (r === 503) return outage();
      if ('file' in r) return sendJson(req, res, capture(r.file), RESETS_CACHE);
      const first = captureJson<{ pagination: { next_cursor: string } }>(r.pages[0]);
      const cursor = url.searchParams.get('cursor');
      if (cursor === null) return sendJson(req, res, capture(r.pages[0]), RESETS_CACHE);
      if (cursor === first.pagination.next_cursor) return sendJson(req, res, capture(r.pages[1]), RESETS_CACHE);
      res.writeHead(400, { 'content-type': 'application/json; charset=utf-8' });
      return void res.end(JSON.stringify({ error: { code: 'invalid_cursor', message: 'Invalid cursor' } }));
    }
    if (url.pathname === '/api/v1/status')
      return scenario.resets === 503 ? outage() : sendJson(req, res, bodyOf(scenario.status), STATUS_CACHE);
    if (url.pathname === '/api/timeline' && scenario.timeline !== undefined)
      return scenario.timeline === 503 ? outage() : sendJson(req, res, bodyOf(scenario.timeline), 'public, max-age=60');
    if (url.pathname === '/oembed' && scenario.oembed !== undefined) {
      const id = /\/status(?:es)?\/(\d{1,20})/.exec(url.searchParams.get('url') ?? '')?.[1] ?? '';
      const answer = Object.hasOwn(scenario.oembed, id) ? scenario.oembed[id]! : 404;
      if (typeof answer === 'number') {
        // X answers a post that does not exist or is not public with 404, a refusal with 403 or 429.
        res.writeHead(answer, {
          'content-type': 'application/json; charset=utf-8',
          ...(answer === 429 ? { 'retry-after': '900' } : {}),
        });
        return void res.end(JSON.stringify({ error: answer === 404 ? 'Not Found' : 'Refused' }));
      }
      return sendJson(req, res, JSON.stringify(answer.body), 'max-age=3153600000');
    }
    if (url.pathname === '/api/v2/summary.json') return sendJson(req, res, capture(scenario.summary), 'max-age=30');
    if (url.pathname === '/proxy/status.openai.com/incidents') {
      if (scenario.incidents === 404) return sendHtml(res, 404, 'openai-status/incidents-unresolved.404.html');
      return sendJson(req, res, bodyOf(scenario.incidents), 'max-age=30');
    }
    if (url.pathname === '/api/v2/incidents/unresolved.json')
      return sendHtml(res, 404, 'openai-status/incidents-unresolved.404.html');
    if (url.pathname === '/r/codex/new/.rss') {
      if (scenario.reddit === 403) return sendHtml(res, 403, 'reddit/blocked-403.html');
      if (scenario.reddit === 429)
        return sendHtml(res, 429, 'reddit/too-many-requests-429.html', { 'retry-after': '60' });
      res.writeHead(200, {
        'content-type': 'application/atom+xml; charset=UTF-8',
        'cache-control': 'private, max-age=0',
      });
      return void res.end(capture('reddit/r-codex-new.atom.reconstructed.xml'));
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  };
  const server = await startLoopback(handler);
  return {
    server,
    requests,
    env: {
      RESET_UPSTREAM_URL: `${server.url}/api/v1/resets`,
      RESET_STATUS_PAGE_URL: `${server.url}/api/v2/summary.json`,
      RESET_STATUS_INCIDENTS_URL: `${server.url}/proxy/status.openai.com/incidents`,
      RESET_SIGNAL_FEEDS: `${server.url}/r/codex/new/.rss`,
      // A source the scenario does not serve is off, never the public service.
      RESET_TIMELINE_URL: scenario.timeline === undefined ? '' : `${server.url}/api/timeline`,
      RESET_POST_EMBED_URL: scenario.oembed === undefined ? '' : `${server.url}/oembed`,
    },
    close: () => server.close(),
  };
}
