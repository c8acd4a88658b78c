// One refresh: read the clock once, check the sources, update state, compute, render, publish.
import { randomUUID } from 'node:crypto';
import { computeAccuracy, recordForecast } from './model/accuracy.ts';
import { applySourceResults, sourcesDue } from './model/apply.ts';
import { applyReviewDates, knownBy, mergeEvents } from './model/events.ts';
import { computeForecast, type Forecast } from './model/forecast.ts';
import { archiveCoverage, coveredUntil, extendCoverage } from './model/coverage.ts';
import { reconcileTracker, withReconcileSignals } from './model/reconcile.ts';
import { attachReach } from './model/reach.ts';
import type { Announcement, Event, State } from './model/schemas.ts';
import { computeLatest, computeToday, stateAsOf, type TodayState } from './model/status.ts';
import { computeUpcoming, withOverdueAnnouncement } from './model/announcement.ts';
import { renderApiParts, type RenderInput } from './render/documents.ts';
import { mergeInPhaseOrder, type OutputDocument } from './render/output.ts';
import { renderPages } from './render/page.tsx';
import { renderFollow, renderUnknownBadges } from './render/follow.ts';
import { openNotificationKeys, planNotifications, recordOutcomes } from './notify/plan.ts';
import type { PublicUrls } from './public-url.ts';
import type { Notifier } from './notify/send.ts';
import { computeEdgeFreshness, edgeStoreEntries, unknownVariants } from './model/freshness.ts';
import {
  DEFAULT_PUBLIC_URL,
  expiredForecastKey,
  expiredForecastPageKey,
  isUnknownVariantEndpoint,
  unknownPageKey,
  unknownVariantKey,
  type Lang,
} from './contract.ts';
import { apiDocKey, type DocKeyOf } from './render/page-data.ts';
import { renderExpiredForecasts, renderUnknownVariants, variantSegment } from './render/unknown.ts';
import type { EdgeStore, EdgeStoreReport } from './publish/edge-store.ts';
import type { PublishReport, Sink } from './publish/sink.ts';
import { loadCuratedData, type CuratedData } from './sources/archive.ts';
import type { PostReadResult, SourceResult } from './model/inputs.ts';
import { computeAgreement, trackerHealth } from './model/agreement.ts';
import { applyPostReads, planPostReads, verifyEvents } from './model/verify.ts';
import { fetchPostReads } from './sources/post-embed.ts';
import type { Fetcher, SourceConfig } from './sources/fetcher.ts';
import { fetchAllSources } from './sources/index.ts';
import { ConflictError } from './errors.ts';
import { updateState, type LoadedState, type LockHandle, type StateStore } from './state/store.ts';

/** A run that dies holding the lock blocks the next ones for at most this long. */
const RUN_LOCK_TTL_MS = 10 * 60 * 1000;

export interface RunDeps {
  now: () => Date;
  fetcher: Fetcher;
  sources: readonly SourceConfig[];
  store: StateStore;
  sink: Sink;
  dataDir: string;
  /**
   * Where the API is served (feeds, the calendar and notifications link to it) and the OpenAPI document's server and
   * contact; absent: DEFAULT_PUBLIC_URL, the OpenAPI defaults.
   */
  urls?: PublicUrls | undefined;
  /** Notification channels and the language of their messages; absent: nothing is sent. */
  notify?: { notifier: Notifier; lang: Lang } | undefined;
  /** Where the edge reads until when the answer holds and which event ids exist; none: the edge is not told. */
  edgeStore?: EdgeStore | undefined;
  log?: (line: string) => void;
  /** A deliberate rebuild as of a past instant (`--rebuild-past`, local only): builds on state newer than `now`. */
  allowOlderState?: boolean;
  /** X's oEmbed endpoint, through which the service reads official posts to verify resets; absent: verification off. */
  postReader?: SourceConfig | null | undefined;
}

export interface RunSummary {
  asOf: string;
  skipped: boolean;
  published: PublishReport | null;
  documents: number;
  sources: { id: string; ok: boolean; detail: string }[];
  today: TodayState | null;
  reset: boolean | null;
  forecast: Pick<Forecast, 'probability_24h' | 'probability_48h' | 'sample_size' | 'model_version'> | null;
  warnings: string[];
  /** Deliveries this run: sent, failed (retried next run), skipped (the run's notification budget ran out). */
  notifications?: { sent: number; failed: number; skipped: number } | undefined;
  /** What the edge store was told (stale_after, keys put and deleted); absent when the run has no edge store. */
  edge?: { stale_after: string; store: EdgeStoreReport } | undefined;
}

/**
 * Pure: the state after this run's source results, with the as-issued forecast logged at checkpoints, and the
 * merged events and forecast it was computed from (the run publishes exactly these). Refuses state newer than this
 * run unless `allowOlderState`: state is saved before every publish, so its `updated_at` is the as-of of the newest
 * data published or being published.
 */
function computeNextState(
  state: State,
  results: readonly SourceResult[],
  posts: PostReadResult | null,
  curated: CuratedData,
  asOf: Date,
  opts: { allowOlderState?: boolean | undefined; verify: boolean },
): { state: State; events: Event[]; forecast: Forecast; upcoming: Announcement | null } {
  if (!opts.allowOlderState && state.updated_at !== null && Date.parse(state.updated_at) > asOf.getTime()) {
    throw new ConflictError(
      'run',
      `the stored state is as of ${state.updated_at}, newer than this run (as of ${asOf.toISOString()}): a run never publishes older data over newer`,
    );
  }
  const sourced = applySourceResults(state, results, curated.reviews, asOf);
  // The post reader is a source check of its own; what it read is remembered, a post read once for good.
  const applied = posts
    ? {
        ...sourced,
        checks: [...sourced.checks, posts.check],
        post_reads: applyPostReads(sourced.post_reads, posts, asOf),
      }
    : sourced;
  const { events, signals } = computeEvents(applied, curated, asOf, opts.verify);
  // An announced global reset moves the forecast more than any history (model/announcement.ts).
  const { upcoming } = computeUpcoming(applied.announcement, events, asOf);
  // Observed time: the reviewed archive's span plus stretches of good reset-source checks (model/coverage.ts).
  const checks = results.map((r) => r.check);
  const reset_coverage = extendCoverage(applied.reset_coverage, checks, asOf);
  const coverage = [...archiveCoverage(curated.events), ...reset_coverage];
  const forecast = computeForecast(events, asOf, {
    announced: upcoming?.type === 'global_reset' ? upcoming : null,
    announcementReview: curated.announcements ?? [],
    coveredUntil: coveredUntil(coverage, asOf.getTime()),
  });
  const next = {
    ...applied,
    signals: withReconcileSignals(applied.signals, state.signals, signals),
    reset_coverage,
    ...recordForecast(applied, forecast, events, asOf, coverage),
    updated_at: asOf.toISOString(),
  };
  return { state: withOverdueAnnouncement(next, events, asOf), events, forecast, upcoming };
}

/**
 * Pure: the events a build as of `asOf` publishes, and the questions they leave for review. Curated history with its
 * reviewed decisions; both trackers' records, one post one event (model/reconcile.ts, events.ts); what every source
 * says of each (model/agreement.ts); then what the service verified itself from the posts it read (model/verify.ts).
 */
function computeEvents(state: State, curated: CuratedData, asOf: Date, verify: boolean) {
  // An as-of build shows nothing from after asOf (state may hold what later runs saw): a reviewed decision
  // (model/events.ts) and whom each reset reached (model/reach.ts) apply only from the decision's date.
  const reviewed = applyReviewDates(curated.events, curated.review_dates ?? [], asOf);
  const curatedEvents = attachReach(reviewed, curated.reach ?? {}, asOf);
  const trackers = state.upstream_events.filter((e) => knownBy(e, asOf));
  const labels = state.source_labels.filter((l) => Date.parse(l.at) <= asOf.getTime());
  const reviews = curated.tracker_reviews ?? [];
  // One post, one event: a tracker record takes the type curated history gives its post (model/reconcile.ts).
  const reconciled = reconcileTracker(curatedEvents, trackers, reviews, asOf);
  const merged = mergeEvents(reconciled.curated, reconciled.tracker).filter((e) => knownBy(e, asOf));
  const records = [...curatedEvents, ...trackers];
  const checks = state.checks.filter((c) => Date.parse(c.checked_at) <= asOf.getTime());
  const health = trackerHealth(checks, records, labels);
  const agreed = computeAgreement({ merged, records, labels, reviews, health, asOf });
  const official = new Set(curated.official_accounts ?? []);
  const evidence = { reads: state.post_reads, official, records, labels, enabled: verify, asOf };
  const events = verifyEvents(agreed.events, evidence);
  // The sources' questions first (they name every source's word); the tracker-vs-curated ones fill in the rest.
  const asked = new Set(agreed.signals.map((s) => s.id));
  const signals = [...agreed.signals, ...reconciled.signals.filter((s) => !asked.has(s.id))].filter(
    // Only questions about records this build knows (an as-of build does not know records from after asOf).
    (s) => s.event_ids?.every((id) => events.some((e) => e.id === id || e.same_as.includes(id))) ?? true,
  );
  return { events, signals };
}

/**
 * Every document of the build, in phase order: the few about the present (with the page, the follow documents and
 * the unknown variants made from them) at once, the event documents and history pages as the sink takes them.
 */
function renderBuild(input: RenderInput, publicUrl: string): Iterable<OutputDocument> {
  const { asOf, events, today, upcoming = null } = input;
  const { eager: docs, stable } = renderApiParts(input);
  docs.push(...renderPages({ asOf, docs, events }), ...renderFollow({ events, upcoming, today, publicUrl }));
  // What the edge serves once this answer no longer holds: for today and the next UNKNOWN_VARIANT_DAYS_AHEAD UTC
  // dates, then a dateless one, in every language.
  const plan = unknownVariants(asOf);
  // And the forecast once past its own stale_after, which no date names.
  const variants = [...renderUnknownVariants(docs, plan), ...renderExpiredForecasts(docs)];
  // The human page says today's answer and the forecast too: one made from each variant's documents. The unknown ones
  // are served once today's answer no longer holds, with the expired forecast (an hour after issue, later than a calm
  // day's 30 minutes; the page's script loads the forecast the edge serves); one more, with the build's answer and the
  // expired forecast, while today's answer holds longer than the forecast (a day with a recorded reset).
  const withVariants = [...docs, ...variants];
  const expiredForecast: DocKeyOf = (lang, name) =>
    name === 'forecast' ? expiredForecastKey(lang) : apiDocKey(lang, name);
  const pages = (docKeyOf: DocKeyOf, pageKeyOf: (lang: Lang) => string) =>
    renderPages({ asOf, docs: withVariants, events, docKeyOf, pageKeyOf });
  for (const d of plan.map(variantSegment)) {
    const docKeyOf: DocKeyOf = (lang, name) =>
      isUnknownVariantEndpoint(name) ? unknownVariantKey(lang, d, name) : expiredForecast(lang, name);
    variants.push(...pages(docKeyOf, (lang) => unknownPageKey(lang, d)));
  }
  variants.push(...pages(expiredForecast, expiredForecastPageKey), ...renderUnknownBadges());
  return mergeInPhaseOrder([...docs, ...variants], stable());
}

export async function run(deps: RunDeps): Promise<RunSummary> {
  const asOf = deps.now();
  // The curated data (data/, parsed and checked) is read while the lock is taken and the sources answer: it is only
  // needed once they have. A run that does not get the lock drops it; one whose data is invalid fails after fetching.
  const curated = loadCuratedData(deps.dataDir);
  curated.catch(() => undefined); // awaited later; this only keeps an early return from leaving it unhandled
  const lock = await deps.store.acquireLock(`run-${randomUUID()}`, RUN_LOCK_TTL_MS, asOf);
  if (lock === null) {
    deps.log?.('another run holds the lock; nothing published by this one');
    const none = { published: null, documents: 0, sources: [], today: null, reset: null, forecast: null };
    return { asOf: asOf.toISOString(), skipped: true, ...none, warnings: [] };
  }
  try {
    return await runLocked(deps, lock, asOf, curated);
  } finally {
    await deps.store.releaseLock(lock);
  }
}

/**
 * This run's reads: the sources the stored state says may be asked now (a source's terms may bound how often), then
 * the official posts the events this run would publish cite (model/verify.ts plans which), read by the service itself.
 */
async function readAll(deps: RunDeps, stored: State, curatedLoad: Promise<CuratedData>, asOf: Date) {
  const due = sourcesDue(deps.sources, stored.checks, asOf);
  const log = deps.log ?? (() => {});
  const [results, curated] = await Promise.all([fetchAllSources(due, deps.fetcher, asOf, { log }), curatedLoad]);
  if (!deps.postReader) return { results, curated, posts: null };
  // Only the events this run would publish are needed for the plan, not the forecast or the state to save.
  const applied = applySourceResults(stored, results, curated.reviews, asOf);
  const plan = planPostReads(computeEvents(applied, curated, asOf, true).events, applied.post_reads, asOf);
  return { results, curated, posts: await fetchPostReads(deps.fetcher, deps.postReader, plan, asOf) };
}

/** The run once it holds the lock: fetch, save state, compute, render and publish, tell the edge, notify. */
async function runLocked(deps: RunDeps, lock: LockHandle, asOf: Date, curatedLoad: Promise<CuratedData>) {
  const loaded = await deps.store.load();
  const warnings = [...loaded.warnings];
  const { results, curated, posts } = await readAll(deps, loaded.state, curatedLoad, asOf);
  const opts = { allowOlderState: deps.allowOlderState, verify: deps.postReader != null };
  // Every save of this run: up to 5 attempts, the warnings of each reload reported with the run's.
  const save = (mutate: (s: State) => State, from?: LoadedState) =>
    updateState(deps.store, mutate, 5, (w) => warnings.push(...w), from);
  // The attempt that landed is the last one computed: a lost race recomputes from the fresher state.
  let next: ReturnType<typeof computeNextState> | null = null;
  // Fencing: a run that stalled past its lease (a slow source, a paused machine) may have been overtaken. It proves
  // it still holds the lock before it writes state and before each publish phase, and never builds on newer state.
  await deps.store.confirmLock(lock, 'saving state');
  const state = await save((s) => (next = computeNextState(s, results, posts, curated, asOf, opts)).state, loaded);
  const { events, forecast, upcoming } = next!;
  const seen = stateAsOf(state, asOf);
  const today = computeToday(events, seen.checks, asOf);
  const input: RenderInput = {
    ...computeLatest(events, asOf),
    asOf,
    events,
    today,
    checks: seen.checks,
    upstreamStatus: seen.upstream_status,
    signals: seen.signals,
    forecast,
    accuracy: computeAccuracy(seen.forecast_log, seen.forecast_resolutions, asOf),
    archives: curated.archives,
    ...(deps.urls ? { openapi: deps.urls } : {}),
    upcoming,
    trackerWatch: seen.tracker_watch,
  };
  const publicUrl = deps.urls?.publicUrl ?? DEFAULT_PUBLIC_URL;
  const published = await deps.sink.publish(renderBuild(input, publicUrl), {
    beforePhase: (step) => deps.store.confirmLock(lock, `publish ${step}`),
  });
  // After the documents: the store then never names an event, or a variant, that is not published yet; and a run that
  // lost its lock must not move the edge's clock.
  let edge: RunSummary['edge'];
  if (deps.edgeStore) {
    const freshness = computeEdgeFreshness(asOf, today);
    await deps.store.confirmLock(lock, 'writing the edge store');
    const ids = events.map((e) => e.id);
    edge = { stale_after: freshness.stale_after, store: await deps.edgeStore.write(edgeStoreEntries(freshness, ids)) };
  }
  // After publishing, so every link in a message resolves; outcomes are recorded in state only after the sends.
  // Notifying never fails a run that published: a store error while recording is a warning, retried next run.
  let notifications: RunSummary['notifications'];
  if (deps.notify) {
    try {
      const { notifier, lang } = deps.notify;
      const opts = { channels: notifier.channels.map((c) => c.id), lang, publicUrl };
      const plan = planNotifications(state.notifications, events, upcoming, today, asOf, opts);
      const outcomes = plan.length > 0 ? await notifier.send(plan) : [];
      if (outcomes.some((o) => o.result !== 'skipped')) {
        const open = openNotificationKeys(events, upcoming, today, asOf, opts);
        await save((s) => ({ ...s, notifications: recordOutcomes(s.notifications, outcomes, asOf, open) }));
      }
      const count = (r: string) => outcomes.filter((o) => o.result === r).length;
      notifications = { sent: count('sent'), failed: count('failed'), skipped: count('skipped') };
    } catch (err) {
      warnings.push(`notifications: ${(err as Error).message}`);
    }
  }
  const { probability_24h, probability_48h, sample_size, model_version } = forecast;
  // Sources as state recorded them: a quarantined tracker run (model/apply.ts) is a failed check there.
  const checks = results.map(
    ({ check }) => state.checks.find((c) => c.source === check.source && c.checked_at === check.checked_at) ?? check,
  );
  return {
    asOf: asOf.toISOString(),
    skipped: false,
    published,
    // Every document of the build is either written or found unchanged.
    documents: published.written + published.unchanged,
    sources: checks.map((c) => ({ id: c.source, ok: c.ok, detail: c.detail.code })),
    today: today.state,
    reset: today.reset,
    forecast: { probability_24h, probability_48h, sample_size, model_version },
    warnings,
    notifications,
    edge,
  };
}
