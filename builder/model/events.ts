// Pure: when an event happened, merging records from several origins, and filtering.
import type { Event, EventType } from './schemas.ts';

export const DAY_MS = 24 * 60 * 60 * 1000;

/** The time that decides "which day": effective when known, then observed, then announced. */
export function eventTime(e: Event): { at: string; basis: Event['time_basis'] } {
  if (e.effective_at !== null) return { at: e.effective_at, basis: 'effective' };
  if (e.observed_at !== null) return { at: e.observed_at, basis: 'observation' };
  return { at: e.announced_at!, basis: 'announcement' };
}

/** The UTC calendar date (YYYY-MM-DD) an event belongs to. */
export function eventDate(e: Event): string {
  return eventTime(e).at.slice(0, 10);
}

/** Milliseconds since epoch; a day-precision event counts from the start of its UTC day. */
export function eventMs(e: Event): number {
  const at = eventTime(e).at;
  return Date.parse(at.length === 10 ? `${at}T00:00:00Z` : at);
}

export function utcDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

const STATUS_RANK = { verified: 2, archived: 1 } as const;
const ORIGIN_RANK = { curated: 3, ledger: 2, service_resets: 1 } as const;

function better(a: Event, b: Event): Event {
  if (STATUS_RANK[a.status] !== STATUS_RANK[b.status]) return STATUS_RANK[a.status] > STATUS_RANK[b.status] ? a : b;
  return ORIGIN_RANK[a.origin] >= ORIGIN_RANK[b.origin] ? a : b;
}

/**
 * Merges records from every origin into one list, one record per real-world event, newest first.
 * Two records are the same event when one lists the other in `same_as` or they cite the same source post.
 * The winner is the verified one (then curated, ledger, tracker); it keeps its own text and translations,
 * and gains the sources and `same_as` ids of the records it absorbed.
 */
export function mergeEvents(...lists: readonly (readonly Event[])[]): Event[] {
  const all = lists.flat();
  const parent = all.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]!]!;
    return i;
  };
  const union = (a: number, b: number) => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent[rb] = ra;
  };
  const byKey = new Map<string, number>();
  all.forEach((e, i) => {
    const keys = [`id:${e.id}`, ...e.same_as.map((s) => `id:${s}`), ...e.sources.map((s) => `url:${normalizeUrl(s.url)}`)];
    for (const k of keys) {
      const j = byKey.get(k);
      if (j === undefined) byKey.set(k, i);
      else union(j, i);
    }
  });
  const groups = new Map<number, Event[]>();
  all.forEach((e, i) => {
    const r = find(i);
    groups.set(r, [...(groups.get(r) ?? []), e]);
  });
  const merged: Event[] = [];
  for (const group of groups.values()) {
    const winner = group.reduce(better);
    const sources = new Map(winner.sources.map((s) => [normalizeUrl(s.url), s]));
    const sameAs = new Set(winner.same_as);
    for (const e of group) {
      if (e === winner) continue;
      sameAs.add(e.id);
      for (const s of e.sources) if (!sources.has(normalizeUrl(s.url))) sources.set(normalizeUrl(s.url), s);
    }
    sameAs.delete(winner.id);
    merged.push({ ...winner, sources: [...sources.values()], same_as: [...sameAs].sort() });
  }
  return merged.sort((a, b) => eventMs(b) - eventMs(a) || a.id.localeCompare(b.id));
}

/** Lower-cases host, drops query, fragment and trailing slash, and treats twitter.com as x.com. */
export function normalizeUrl(u: string): string {
  try {
    const url = new URL(u);
    const host = url.hostname.toLowerCase().replace(/^(www\.|mobile\.)/, '').replace(/^twitter\.com$/, 'x.com');
    return `${host}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return u;
  }
}

export function ofType(events: readonly Event[], type: EventType): Event[] {
  return events.filter((e) => e.type === type);
}
