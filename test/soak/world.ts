// The soak's outside world on 127.0.0.1: the upstream reset tracker (its resets and /status), the status page and
// two signal feeds, all served by one loopback server whose behaviour the soak sets tick by tick (flapping, stalling,
// flooding, lying), and a notification receiver that records every delivery it acknowledged.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startLoopback, type LoopbackServer } from '../helpers/build.ts';

export const FLOOD_RECORDS = 1_001;
export const FLOOD_SIGNALS = 500;
const HOUR_MS = 60 * 60_000;
const DAY_MS = 24 * HOUR_MS;

export type TrackerMode = 'ok' | 'down' | 'stall' | 'flood' | 'lie';
export type StatusMode = 'ok' | 'down' | 'stall' | 'lie';
export type FeedMode = 'ok' | 'down' | 'stall' | 'flood';
export type ReceiverMode = 'ok' | 'down';

export interface SourceModes {
  tracker: TrackerMode;
  trackerStatus: 'ok' | 'down' | 'stall';
  status: StatusMode;
  feedA: FeedMode;
  feedB: FeedMode;
}

/** One real reset of the simulated world: it appears on the tracker at `atMs`. */
interface WorldReset {
  n: number;
  type: 'regular' | 'banked';
  atMs: number;
}

interface TrackerRecord {
  id: string;
  reset_type: string;
  announced_at: string;
  text: string;
  source: { type: 'observed'; url: string };
}

/** The real resets of the soak's ten days: a global reset every 6 to 30 hours, a banked grant now and then. */
export function computeWorldResets(t0Ms: number, spanMs: number, rand: () => number): WorldReset[] {
  const out: WorldReset[] = [];
  let at = t0Ms + 2 * HOUR_MS;
  for (let n = 1; at < t0Ms + spanMs; n++) {
    out.push({ n, type: rand() < 0.2 ? 'banked' : 'regular', atMs: at });
    at += 6 * HOUR_MS + Math.floor(rand() * 24 * HOUR_MS);
  }
  return out;
}

const iso = (ms: number) => new Date(ms).toISOString();

function honestRecords(resets: readonly WorldReset[], nowMs: number): TrackerRecord[] {
  return resets
    .filter((r) => r.atMs <= nowMs)
    .sort((a, b) => b.atMs - a.atMs)
    .slice(0, 100)
    .map((r) => ({
      id: `rst_${r.n}`,
      reset_type: r.type,
      announced_at: iso(r.atMs),
      text:
        r.type === 'regular'
          ? `We reset Codex usage limits for everyone (#${r.n}).`
          : `Banked reset granted to affected accounts (#${r.n}).`,
      source: { type: 'observed', url: `https://tracker.example.test/resets/${r.n}` },
    }));
}

/** What a lying tracker does to its records, a different mix every tick: repeats, renumbers, recases, moves, dates far ahead. */
function lie(records: TrackerRecord[], nowMs: number, tick: number, rand: () => number): TrackerRecord[] {
  const out: TrackerRecord[] = [];
  for (const r of records) {
    const roll = rand();
    if (roll < 0.25)
      out.push(r, { ...r }); // repeated
    else if (roll < 0.45)
      out.push({ ...r, id: `${r.id}${tick}` }); // renumbered: same post, a new id
    else if (roll < 0.65)
      out.push({ ...r, id: r.id.toUpperCase() }); // another case
    else if (roll < 0.85)
      out.push({
        ...r,
        announced_at: iso(
          Math.min(nowMs, Date.parse(r.announced_at) + (rand() < 0.5 ? -1 : 1) * Math.floor(rand() * 6 * HOUR_MS)),
        ),
      }); // moved
    else out.push(r);
  }
  out.push(
    {
      id: `far_${tick}`,
      reset_type: 'regular',
      announced_at: '9999-12-31T00:00:00Z',
      text: 'Codex usage limits reset for everyone.',
      source: { type: 'observed', url: `https://tracker.example.test/far/${tick}` },
    },
    {
      id: `ahead_${tick}`,
      reset_type: 'regular',
      announced_at: iso(nowMs + DAY_MS),
      text: 'Codex usage limits reset for everyone.',
      source: { type: 'observed', url: `https://tracker.example.test/ahead/${tick}` },
    },
  );
  // Out of order too.
  return out.sort(() => rand() - 0.5);
}

function flood(nowMs: number, tick: number): TrackerRecord[] {
  return Array.from({ length: FLOOD_RECORDS }, (_, j) => ({
    id: `flood_${tick}_${j}`,
    reset_type: 'regular',
    announced_at: iso(nowMs - 60_000 - j * 80_000),
    text: `Codex usage limits reset for everyone (flood ${tick}/${j}).`,
    source: { type: 'observed' as const, url: `https://flood.example.test/${tick}/${j}` },
  }));
}

function statusPage(nowMs: number, mode: StatusMode, rand: () => number): unknown {
  const lying = mode === 'lie';
  const codex = lying
    ? ['major_outage', 'degraded_performance', 'melting', 'operational'][Math.floor(rand() * 4)]
    : 'operational';
  return {
    page: {
      id: 'soak',
      name: 'Example AI',
      url: 'https://status.example.test',
      updated_at: lying ? '9999-12-31T23:59:59Z' : iso(nowMs - 60_000),
    },
    status: {
      indicator: lying ? 'critical' : 'none',
      description: lying ? 'Everything is fine' : 'All Systems Operational',
    },
    components: [
      { id: 'c1', name: 'Codex Web', status: codex },
      { id: 'c2', name: 'Codex API', status: 'operational' },
    ],
  };
}

function feedA(resets: readonly WorldReset[], nowMs: number): unknown {
  // A forum: people ask about each real reset within the hour, plus chatter.
  const items = resets
    .filter((r) => r.atMs <= nowMs && nowMs - r.atMs < 3 * DAY_MS)
    .flatMap((r) => [
      {
        id: `post-${r.n}`,
        title: `Did Codex limits just reset? (${r.n})`,
        url: `https://forum.example.test/p/${r.n}`,
        date_published: iso(r.atMs + 20 * 60_000),
        content_text: 'My codex usage reset.',
      },
      {
        id: `chat-${r.n}`,
        title: `New editor theme ${r.n}`,
        url: `https://forum.example.test/c/${r.n}`,
        date_published: iso(r.atMs + 30 * 60_000),
        content_text: 'Nothing about limits.',
      },
    ])
    .filter((i) => Date.parse(i.date_published) <= nowMs);
  return { version: 'https://jsonfeed.org/version/1.1', title: 'r/codex', items };
}

function feedFlood(nowMs: number, tick: number): unknown {
  const items = Array.from({ length: FLOOD_SIGNALS }, (_, j) => ({
    id: `spam-${tick}-${j}`,
    title: `Codex reset for everyone!!! ${tick}-${j}`,
    url: `https://spam.example.test/${tick}/${j}`,
    date_published: iso(nowMs - j * 60_000),
    content_text: 'codex reset codex reset',
  }));
  return { version: 'https://jsonfeed.org/version/1.1', title: 'Codex reset spam', items };
}

export interface SourceWorld {
  /** Base URLs, as the build's environment names them. */
  env: Record<string, string>;
  /** Sets the instant and the behaviour of every source for the next run. */
  set(tick: number, nowMs: number, modes: SourceModes): void;
  /** Requests answered by source, and requests left hanging (stalls). */
  stats: { requests: number; stalled: number };
  close(): Promise<void>;
}

export async function startSourceWorld(resets: readonly WorldReset[], rand: () => number): Promise<SourceWorld> {
  let tick = 0;
  let nowMs = 0;
  let modes: SourceModes = { tracker: 'ok', trackerStatus: 'ok', status: 'ok', feedA: 'ok', feedB: 'ok' };
  const stats = { requests: 0, stalled: 0 };
  const json = (res: ServerResponse, body: unknown) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  /** Down alternates a refused-looking reset connection and a 503; stall never answers (the fetcher's timeout ends it). */
  const faulted = (req: IncomingMessage, res: ServerResponse, mode: string): boolean => {
    if (mode === 'down') {
      if (tick % 2 === 0) req.socket.destroy();
      else {
        res.writeHead(503, { 'content-type': 'text/plain' });
        res.end('unavailable');
      }
      return true;
    }
    if (mode === 'stall') {
      stats.stalled++;
      return true;
    }
    return false;
  };
  const server: LoopbackServer = await startLoopback((req, res) => {
    stats.requests++;
    const path = (req.url ?? '').split('?')[0];
    if (path === '/tracker/api/v1/resets') {
      if (faulted(req, res, modes.tracker)) return;
      let data = honestRecords(resets, nowMs);
      if (modes.tracker === 'flood') data = [...flood(nowMs, tick), ...data];
      if (modes.tracker === 'lie') data = lie(data, nowMs, tick, rand);
      return json(res, {
        data,
        pagination: { has_more: false, next_cursor: null },
        meta: { api_version: '1', generated_at: iso(nowMs) },
      });
    }
    if (path === '/tracker/api/v1/status') {
      if (faulted(req, res, modes.trackerStatus)) return;
      // The next real reset is announced two hours ahead.
      const next = resets.find((r) => r.atMs > nowMs && r.atMs - nowMs <= 2 * HOUR_MS && r.type === 'regular');
      const scheduled = next
        ? {
            id: `rst_${next.n}`,
            status: 'scheduled',
            reset_type: 'regular',
            announced_at: iso(next.atMs - 2 * HOUR_MS),
            scheduled_for: iso(next.atMs),
            text: 'Limits reset in two hours.',
            source: { type: 'observed', url: `https://tracker.example.test/announced/${next.n}` },
          }
        : null;
      return json(res, {
        data: { latest_reset: null, scheduled_reset: scheduled, active_watch: false, stats: { total: resets.length } },
      });
    }
    if (path === '/status/api/v2/summary.json') {
      if (faulted(req, res, modes.status)) return;
      return json(res, statusPage(nowMs, modes.status, rand));
    }
    if (path === '/feeds/a.json') {
      if (faulted(req, res, modes.feedA)) return;
      return json(res, modes.feedA === 'flood' ? feedFlood(nowMs, tick) : feedA(resets, nowMs));
    }
    if (path === '/feeds/b.json') {
      if (faulted(req, res, modes.feedB)) return;
      return json(
        res,
        modes.feedB === 'flood'
          ? feedFlood(nowMs, tick)
          : { version: 'https://jsonfeed.org/version/1.1', title: 'Codex news', items: [] },
      );
    }
    res.writeHead(404);
    res.end();
  });
  return {
    env: {
      RESET_UPSTREAM_URL: `${server.url}/tracker/api/v1/resets`,
      RESET_TIMELINE_URL: '',
      RESET_POST_EMBED_URL: '',
      RESET_STATUS_PAGE_URL: `${server.url}/status/api/v2/summary.json`,
      // This world models no incident feed (incident.io's /proxy/<host>/incidents): that source is switched off.
      RESET_STATUS_INCIDENTS_URL: '',
      RESET_SIGNAL_FEEDS: `${server.url}/feeds/a.json,${server.url}/feeds/b.json`,
    },
    set(t, at, m) {
      tick = t;
      nowMs = at;
      modes = m;
    },
    stats,
    close: () => server.close(),
  };
}

export interface Delivery {
  /** The receiver path: which channel. */
  channel: string;
  /** The Idempotency-Key header. */
  key: string;
  /** The tick during which it arrived. */
  tick: number;
  /** For plain webhook resets: the post the message announces (to see one reset announced under two keys). */
  source: string | null;
}

export interface Receiver {
  url: string;
  deliveries: Delivery[];
  /** Requests refused while down (not deliveries: the sender must retry). */
  refused: number;
  set(tick: number, mode: ReceiverMode): void;
  close(): Promise<void>;
}

/** Every delivery it answered 2xx is recorded; while down it answers 503 and records nothing. */
export async function startReceiver(): Promise<Receiver> {
  let tick = 0;
  let mode: ReceiverMode = 'ok';
  const receiver: Receiver = {
    url: '',
    deliveries: [],
    refused: 0,
    set: (t, m) => {
      tick = t;
      mode = m;
    },
    close: () => server.close(),
  };
  const server = await startLoopback((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (mode === 'down') {
        receiver.refused++;
        res.writeHead(503);
        return res.end();
      }
      const channel = (req.url ?? '').split('?')[0]!;
      let source: string | null = null;
      if (channel === '/hook') {
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
            kind?: string;
            links?: { source?: string | null };
          };
          if (body.kind === 'reset') source = body.links?.source ?? null;
        } catch {
          // A digest or another shape: no post to attribute.
        }
      }
      receiver.deliveries.push({ channel, key: String(req.headers['idempotency-key'] ?? ''), tick, source });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  receiver.url = server.url;
  return receiver;
}
