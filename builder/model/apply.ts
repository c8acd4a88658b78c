// Pure: folds one run's source results and the review decisions into the stored state.
import { urlOrigin } from '../contract.ts';
import type { ReviewDecision, SourceResult } from './inputs.ts';
import { toIso } from './climatology.ts';
import { isGoodResetCheck, latestCheck } from './status.ts';
import { DAY_MS, eventMs, firstPerKey, instantMs, newestTime, normalizeUrl } from './events.ts';
import {
  AWAITING_REVIEW,
  MAX_SOURCE_LABELS,
  MAX_WATCHES,
  capText,
  type Event,
  type Signal,
  type SourceCheck,
  type SourceKind,
  type SourceLabel,
  type State,
  type TrackerWatch,
} from './schemas.ts';

/** 24 hours of checks at one run every 15 minutes. */
export const CHECK_HISTORY_PER_SOURCE = 96;
export const SIGNAL_WINDOW_MS = 7 * DAY_MS;
export const MAX_SIGNALS = 500;
/** Signals one source may hold in the review queue (its newest): one flooding feed cannot crowd out the others. */
export const MAX_SIGNALS_PER_SOURCE = 100;
/** Tracker events kept in state, newest first: the tracker holds a few hundred; a runaway source stops here. */
export const MAX_TRACKER_EVENTS = 2_000;
/** The anomaly rule: a tracker run bringing more new global resets of the last day is quarantined (real: a few). */
export const ANOMALY_MAX_NEW_RESETS = 10;

/**
 * Sources whose terms bound how often they are asked (codex-reset.com: at most one poll a minute, `429` and
 * `Retry-After` honoured), and the shortest spacing each allows between two requests.
 */
const MIN_POLL_MS: Partial<Record<SourceKind, number>> = { reset_timeline: 60_000 };

/**
 * Pure: the sources to ask this run. A source with a minimum spacing is left out while its last request is more recent
 * than that, or while the wait its last `429` asked for (`retry_after_s`) has not passed; it keeps its last good data
 * and records no check, so its earlier good check still counts for today until it goes stale.
 */
export function sourcesDue<T extends { id: string; kind: SourceKind }>(
  configs: readonly T[],
  checks: readonly SourceCheck[],
  asOf: Date,
): T[] {
  return configs.filter((c) => {
    const spacing = MIN_POLL_MS[c.kind];
    if (spacing === undefined) return true;
    const last = latestCheck(checks.filter((k) => k.source === c.id && Date.parse(k.checked_at) <= asOf.getTime()));
    if (last === null) return true;
    const wait = Math.max(spacing, Number(last.detail.params.retry_after_s ?? 0) * 1000);
    return asOf.getTime() - Date.parse(last.checked_at) >= wait;
  });
}

/** The newest checks of each source; one of the same source and instant replaces the stored one (a retried run). */
function appendChecks(stored: readonly SourceCheck[], results: readonly SourceResult[]): SourceCheck[] {
  const fresh = results.map((r) => r.check);
  const key = (c: SourceCheck) => `${c.checked_at}\u0000${c.source}`;
  const replaced = new Set(fresh.map(key));
  const all = [...stored.filter((c) => !replaced.has(key(c))), ...fresh];
  return firstPerKey(all.reverse(), (c) => c.source, CHECK_HISTORY_PER_SOURCE).reverse();
}

const newestMs = (e: Event): number => instantMs(newestTime(e));

/** At most MAX_TRACKER_EVENTS, newest first, always keeping each type's newest (its history never goes back). */
function capTrackerEvents(events: readonly Event[]): Event[] {
  const byTime = [...events].sort((a, b) => eventMs(b) - eventMs(a) || a.id.localeCompare(b.id));
  // Each type's newest; the sort is stable, so among equally new records the first by time is kept.
  const byNewest = [...byTime].sort((a, b) => newestMs(b) - newestMs(a));
  const kept = new Set(firstPerKey(byNewest, (e) => e.type));
  for (const e of byTime) if (kept.size < MAX_TRACKER_EVENTS) kept.add(e);
  return byTime.filter((e) => kept.has(e));
}

/** Tracker records are history, not a mirror: fixed at first sight (by id), kept when the tracker drops them. */
function computeUpstreamEvents(previous: readonly Event[], results: readonly SourceResult[]): Event[] {
  // The tracker's status lists its latest reset too (and is cached for less time at its CDN than `/resets`).
  const good = okResults(results, ['reset_tracker', 'tracker_status', 'reset_timeline'], 'events');
  if (good.length === 0) return [...previous];
  const byId = new Map(previous.map((e) => [e.id, e]));
  for (const e of good.flatMap((r) => r.events ?? [])) if (!byId.has(e.id)) byId.set(e.id, e);
  return capTrackerEvents([...byId.values()]);
}

/** The ok results of one source kind that carry `field`, in order. */
const okResults = (results: readonly SourceResult[], kinds: SourceKind | SourceKind[], field: keyof SourceResult) =>
  results.filter((r) => r.check.ok && [kinds].flat().includes(r.check.kind) && r[field] !== undefined);

/** The anomaly rule: such a run becomes a failed check, and one `source_anomaly` signal per source and UTC day. */
function quarantineAnomalies(stored: readonly Event[], results: readonly SourceResult[], asOf: Date) {
  const known = new Set(stored.flatMap((e) => [e.id, ...e.same_as]));
  const at = toIso(asOf.getTime());
  const signals: Signal[] = [];
  const screened = results.map((r): SourceResult => {
    if (!isGoodResetCheck(r.check) || r.events === undefined) return r;
    // New global resets dated within the last day: a quarantined run's records never enter state, so counting older
    // ones would quarantine the same backlog on every run for good.
    const count = r.events.filter(
      (e) => e.type === 'global_reset' && !known.has(e.id) && asOf.getTime() - eventMs(e) <= DAY_MS,
    ).length;
    if (count <= ANOMALY_MAX_NEW_RESETS) return r;
    // Scheme and host of the source (the check holds its URL redacted already): all the signal says of it.
    const origin = urlOrigin(r.check.url) ?? '(unknown)';
    const slug = r.check.source.toLowerCase().replace(/[^a-z0-9._-]+/g, '-');
    signals.push({
      id: `source-anomaly-${slug.slice(0, 60)}-${at.slice(0, 10)}`,
      kind: 'source_anomaly',
      source: r.check.source,
      title: `${count} new global resets in one run`,
      excerpt: `${origin}: more than ${ANOMALY_MAX_NEW_RESETS} new global resets in one run; quarantined, nothing from this run was used.`,
      url: null,
      published_at: null,
      first_seen_at: at,
      ...AWAITING_REVIEW,
      count,
      origin,
    });
    const detail = { code: 'source_anomaly', params: { count, max: ANOMALY_MAX_NEW_RESETS } };
    return { check: { ...r.check, ok: false, items_read: 0, detail } };
  });
  return { results: screened, signals };
}

/** The instant that places a signal in the window; a published_at in the future is not trusted. */
function signalMs(s: Signal, asOfMs: number): number {
  const published = Date.parse(s.published_at ?? '');
  return published <= asOfMs ? published : Date.parse(s.first_seen_at);
}

function computeSignals(
  previous: readonly Signal[],
  incoming: readonly Signal[],
  reviews: readonly ReviewDecision[],
  asOfMs: number,
): Signal[] {
  const all: Signal[] = [...previous];
  // Each signal's place by link and by id: an incoming one takes the place of its link's signal, else of its id's.
  const places = new Map<string, number>();
  const keys = (s: Signal) => [...(s.url === null ? [] : [`url:${normalizeUrl(s.url)}`]), `id:${s.id}`];
  const index = (s: Signal, i: number) => keys(s).forEach((k) => places.set(k, i));
  all.forEach(index);
  for (const s of incoming) {
    const at = keys(s).flatMap((k) => places.get(k) ?? [])[0] ?? all.length;
    // Seen before: keep the id review decisions refer to and when we first saw it; take the fresh text.
    const old = all[at];
    const merged = old === undefined ? s : { ...s, id: old.id, first_seen_at: old.first_seen_at };
    all[at] = merged;
    index(merged, at);
  }
  // data/reviews is the truth for review state: a decision reverted in git puts the signal back in the queue.
  const decisions = new Map(reviews.map((d) => [d.signal_id, d]));
  const reviewed = all
    .filter((s) => signalMs(s, asOfMs) >= asOfMs - SIGNAL_WINDOW_MS)
    .map((s): Signal => {
      const d = decisions.get(s.id);
      if (!d) return { ...s, ...AWAITING_REVIEW };
      if (d.decision === 'dismissed') return { ...s, review: 'dismissed', promoted_to: null };
      // ReviewDecisionSchema holds a promoted decision to a valid event id.
      return { ...s, review: 'promoted', promoted_to: d.event_id! };
    })
    .sort((a, b) => signalMs(b, asOfMs) - signalMs(a, asOfMs) || a.id.localeCompare(b.id));
  return firstPerKey(reviewed, (s) => s.source, MAX_SIGNALS_PER_SOURCE).slice(0, MAX_SIGNALS);
}

/**
 * Each tracker's labels as of its last good read: a good read replaces that source's labels (they describe its list as
 * it is now), a failed one keeps the last good ones. At most MAX_SOURCE_LABELS, newest first.
 */
function computeLabels(previous: readonly SourceLabel[], results: readonly SourceResult[]): SourceLabel[] {
  const fresh = okResults(results, 'reset_timeline', 'labels');
  const replaced = new Set(fresh.map((r) => r.check.source));
  const all = [...previous.filter((l) => !replaced.has(l.source)), ...fresh.flatMap((r) => r.labels ?? [])];
  all.sort((a, b) => Date.parse(b.at) - Date.parse(a.at) || a.record_id.localeCompare(b.record_id));
  return all.slice(0, MAX_SOURCE_LABELS);
}

/** A watch is the same watch when it was raised at the same time with the same level and window. */
const watchKey = (w: TrackerWatch): string => `${w.observed_at}\u0000${w.level}\u0000${w.forecast_window}`;

/** Seen again, a watch or announcement keeps when it was first seen. */
const keepFirstSeen = <T extends { first_seen_at: string }>(prev: T | null, fresh: T | null, key: (x: T) => string) =>
  fresh && prev && key(prev) === key(fresh) ? { ...fresh, first_seen_at: prev.first_seen_at } : fresh;

/** The tracker's watch as a signal awaiting review: its level and window, its words, its link when it has one. */
function watchSignal(w: TrackerWatch, source: string): Signal {
  return {
    id: `tracker-watch-${w.observed_at.replace(/[^0-9]/g, '')}`,
    kind: 'tracker_watch',
    source,
    title: capText(`${w.level} watch: ${w.forecast_window}`.trim(), 300),
    excerpt: w.text,
    url: w.source_url,
    published_at: w.observed_at,
    first_seen_at: w.first_seen_at,
    ...AWAITING_REVIEW,
    expires_at: w.expires_at,
  };
}

/**
 * The state after this run: checks appended, anomalous runs quarantined, data replaced only by ok results (a failed
 * response never wipes the last good data); signals merged by link (or id), kept 7 days, review decisions applied.
 */
export function applySourceResults(
  state: State,
  fetched: readonly SourceResult[],
  reviews: readonly ReviewDecision[],
  asOf: Date,
): State {
  const { results, signals } = quarantineAnomalies(state.upstream_events, fetched, asOf);
  const status = okResults(results, 'status_page', 'status').at(-1)?.status;
  // codex-resets.com's scheduled reset first; codex-reset.com's announced window when the first has none.
  const first = okResults(results, 'tracker_status', 'announcement').at(-1);
  const second = okResults(results, 'reset_timeline', 'announcement').at(-1);
  const timeline = second?.announcement && { ...second.announcement, origin: 'reset_timeline' as const };
  const announced = first || second ? (first?.announcement ?? timeline ?? null) : state.announcement;
  const watched = okResults(results, 'tracker_status', 'watch').at(-1);
  const watch = watched ? keepFirstSeen(state.tracker_watch, watched.watch ?? null, watchKey) : state.tracker_watch;
  const watchSignals = watched && watch ? [watchSignal(watch, watched.check.source)] : [];
  const incoming = [...results.filter((r) => r.check.ok).flatMap((r) => r.signals ?? []), ...watchSignals, ...signals];
  return {
    ...state,
    updated_at: asOf.toISOString(),
    checks: appendChecks(state.checks, results),
    upstream_events: computeUpstreamEvents(state.upstream_events, results),
    source_labels: computeLabels(state.source_labels, results),
    upstream_status: status ?? state.upstream_status,
    announcement: keepFirstSeen(state.announcement, announced, (a) => a.id),
    tracker_watch: watch,
    // Every watch seen, oldest first, once each; past MAX_WATCHES the oldest go.
    watches:
      watch === null || state.watches.some((x) => watchKey(x) === watchKey(watch))
        ? state.watches
        : [...state.watches, watch].slice(-MAX_WATCHES),
    signals: computeSignals(state.signals, incoming, reviews, asOf.getTime()),
  };
}
