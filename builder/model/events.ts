// Pure: when an event happened, what a build as of an instant knows, and merging records from several origins.
import type { EventType } from '../contract.ts';
import type { Event, Reason } from './schemas.ts';

export const DAY_MS = 24 * 60 * 60 * 1000;

/** The time that decides "which day": effective when known, then observed, then announced. */
export function eventTime(e: Event): { at: string; basis: Event['time_basis'] } {
  if (e.effective_at !== null) return { at: e.effective_at, basis: 'effective' };
  if (e.observed_at !== null) return { at: e.observed_at, basis: 'observation' };
  return { at: e.announced_at!, basis: 'announcement' };
}

/** The UTC calendar date (YYYY-MM-DD) an event belongs to. */
export const eventDate = (e: Event): string => eventTime(e).at.slice(0, 10);

/** Milliseconds since epoch of a recorded time; a plain date counts from the start of its UTC day. */
export const instantMs = (at: string): number => Date.parse(at.length === 10 ? `${at}T00:00:00Z` : at);

/** Milliseconds since epoch of the time that decides "which day" (eventTime). */
export const eventMs = (e: Event): number => instantMs(eventTime(e).at);

const recordedTimes = (e: Event): string[] =>
  [e.announced_at, e.observed_at, e.effective_at].filter((t): t is string => t !== null);

/** The newest time recorded on an event (announced, observed or effective), as recorded. */
export const newestTime = (e: Event): string =>
  recordedTimes(e).reduce((a, b) => (instantMs(b) > instantMs(a) ? b : a));

/** Known at `asOf` from its earliest recorded time: a reset announced for later is listed, not yet today's. */
export const knownBy = (e: Event, asOf: Date): boolean =>
  Math.min(...recordedTimes(e).map(instantMs)) <= asOf.getTime();

export const utcDate = (d: Date): string => d.toISOString().slice(0, 10);

/** The first `max` items of each key (without repeats when 1), in order. */
export function firstPerKey<T>(items: readonly T[], key: (item: T) => string, max = 1): T[] {
  const seen = new Map<string, number>();
  return items.filter((item) => {
    const n = (seen.get(key(item)) ?? 0) + 1;
    seen.set(key(item), n);
    return n <= max;
  });
}

/** Whether a reviewed decision (`reviewed_at`, a UTC date) is known to a build as of `asOf`: from 00:00 UTC that day. */
export const reviewedBy = (reviewedAt: string, asOf: Date): boolean => instantMs(reviewedAt) <= asOf.getTime();

/** A decision of the ledger import, baked into the archive: what the record was before it, and when it was made. */
export interface ReviewDate {
  record_id: string;
  reviewed_at: string;
  before: { type?: EventType; reason?: Reason; effective_at_null?: boolean };
}

/** The events as a build as of `asOf` knows them: decisions reviewed after asOf are undone. */
export function applyReviewDates(events: readonly Event[], reviews: readonly ReviewDate[], asOf: Date): Event[] {
  const pending = new Map(reviews.filter((r) => !reviewedBy(r.reviewed_at, asOf)).map((r) => [r.record_id, r]));
  return events.map((e) => {
    const r = pending.get(e.id);
    if (r === undefined) return e;
    const { author_notes: _note, ...rest } = e;
    const basis = rest.observed_at !== null ? 'observation' : 'announcement';
    return {
      ...rest,
      ...(r.before.type ? { type: r.before.type } : {}),
      ...(r.before.reason ? { reason: r.before.reason } : {}),
      ...(r.before.effective_at_null ? { effective_at: null, time_basis: basis } : {}),
    };
  });
}

const STATUS_RANK = { verified: 2, archived: 1 } as const;
const ORIGIN_RANK = { curated: 3, ledger: 2, service_resets: 1, reset_timeline: 0 } as const;

const better = (a: Event, b: Event): Event =>
  (STATUS_RANK[a.status] - STATUS_RANK[b.status] || ORIGIN_RANK[a.origin] - ORIGIN_RANK[b.origin]) >= 0 ? a : b;

/**
 * Records of one type from different origins this close are the same reset: wider than the propagation windows posts
 * name ("in the next hour"), a quarter of the shortest gap between two real global resets (11.9 h, 2026-07-10/11).
 */
export const MERGE_WINDOW_MS = 3 * 60 * 60 * 1000;

/**
 * One record per real-world event, newest first. Two records are one event when one lists the other in `same_as`,
 * they cite the same post (and have one type), or by proximity: one type, one UTC date, instants within
 * MERGE_WINDOW_MS; closest pairs first, and never a second post (or a second observation) of an origin the group holds
 * (one source listing two resets an hour apart means two; its observation and its post of one reset are one). The winner (verified, then curated, ledger, tracker) keeps its text and gains the
 * others' ids in `same_as` and their sources (a tracker's only when it is a tracker record itself).
 */
export function mergeEvents(...lists: readonly (readonly Event[])[]): Event[] {
  const all = lists.flat();
  // Union-find over the records' indices.
  const parent = all.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]!]!;
    return i;
  };
  const byKey = new Map<string, number>();
  all.forEach((e, i) => {
    // A shared link joins records of one type only: a post can announce a banked grant and mention a global reset.
    const ids = [e.id, ...e.same_as].map((id) => `id:${id}`);
    for (const k of [...ids, ...e.sources.map((s) => `url:${e.type}:${normalizeUrl(s.url)}`)]) {
      const j = byKey.get(k);
      if (j === undefined) byKey.set(k, i);
      else parent[find(i)] = find(j);
    }
  });
  const origins = new Map<number, Set<string>>();
  all.forEach((e, k) => origins.set(find(k), (origins.get(find(k)) ?? new Set()).add(witness(e))));
  for (const { i, j } of proximityPairs(all)) {
    const [ri, rj] = [find(i), find(j)];
    if (ri === rj || [...origins.get(rj)!].some((o) => origins.get(ri)!.has(o))) continue;
    parent[rj] = ri;
    origins.set(ri, new Set([...origins.get(ri)!, ...origins.get(rj)!]));
  }
  const groups = new Map<number, Event[]>();
  all.forEach((e, i) => groups.set(find(i), [...(groups.get(find(i)) ?? []), e]));
  const merged = [...groups.values()].map((group): Event => {
    const winner = group.reduce(better);
    const others = group.filter((e) => e !== winner);
    const sources = new Map(winner.sources.map((s) => [normalizeUrl(s.url), s]));
    const sameAs = new Set([...winner.same_as, ...others.map((e) => e.id)]);
    // A tracker cannot vouch for curated history: its links join only a winner that is a tracker record itself. Its
    // record of the very same post adds nothing either, as that link is already there.
    const vouched = others.filter((e) => e.origin !== 'service_resets' || winner.origin === 'service_resets');
    for (const s of vouched.flatMap((e) => e.sources))
      if (!sources.has(normalizeUrl(s.url))) sources.set(normalizeUrl(s.url), s);
    sameAs.delete(winner.id);
    return { ...winner, sources: [...sources.values()], same_as: [...sameAs].sort() };
  });
  return merged.sort((a, b) => eventMs(b) - eventMs(a) || a.id.localeCompare(b.id));
}

/**
 * What a record witnesses, for the proximity rule: a source's post, or a source's observation. A source that saw a
 * reset land and also lists the post about it (codex-reset.com on 2026-09-08: its operator at 01:34Z, the post at
 * 04:05:53Z) recorded one reset; two posts, or two observations, of one source are two.
 */
const witness = (e: Event): string => `${e.origin}:${e.time_basis === 'observation' ? 'observation' : 'post'}`;

/** The proximity rule's pairs, closest first; a sweep by earliest instant, so large histories stay fast. */
function proximityPairs(all: readonly Event[]): { i: number; j: number; d: number }[] {
  // Every instant a record carries (announced, observed, effective); day-precision records have none.
  const instants = all.map((e) => (e.time_precision === 'day' ? [] : recordedTimes(e).map(Date.parse)));
  const lo = instants.map((ts) => Math.min(...ts));
  const order = all.map((_, i) => i).filter((i) => instants[i]!.length > 0);
  order.sort((a, b) => lo[a]! - lo[b]!);
  const pairs: { i: number; j: number; d: number }[] = [];
  for (let p = 0; p < order.length; p++) {
    const a = order[p]!;
    const reach = Math.max(...instants[a]!) + MERGE_WINDOW_MS;
    for (let q = p + 1; q < order.length && lo[order[q]!]! <= reach; q++) {
      const b = order[q]!;
      if (witness(all[a]!) === witness(all[b]!) || all[a]!.type !== all[b]!.type) continue;
      // Resets of two UTC days are two resets, however close across midnight.
      if (eventDate(all[a]!) !== eventDate(all[b]!)) continue;
      const d = Math.min(...instants[a]!.flatMap((x) => instants[b]!.map((y) => Math.abs(x - y))));
      if (d <= MERGE_WINDOW_MS) pairs.push({ i: Math.min(a, b), j: Math.max(a, b), d });
    }
  }
  return pairs.sort((x, y) => x.d - y.d || x.i - y.i || x.j - y.j);
}

/** Lower-cases host, drops query, fragment and trailing slash, and treats twitter.com as x.com. */
export function normalizeUrl(u: string): string {
  const url = URL.parse(u);
  if (url === null) return u;
  const host = url.hostname
    .toLowerCase()
    .replace(/^(www\.|mobile\.)/, '')
    .replace(/^twitter\.com$/, 'x.com');
  return `${host}${url.pathname.replace(/\/+$/, '')}`;
}
