// Pure: one JSON document per endpoint × language (plus history per type and one per event), validated against the
// response schemas, and the OpenAPI document generated from them.
import type { TFunction } from 'i18next';
import { z } from 'zod';
import {
  archivedPageCount,
  EVENT_TYPES,
  endpointKey,
  eventKey,
  formatInstant,
  HISTORY_PAGE_SIZE,
  historyByTypeKey,
  historyPageKey,
  historyPagePath,
  LANGS,
  LICENSE_KEY,
  NOT_FOUND_CONTENT_LANGUAGE,
  NOT_FOUND_KEY,
  TEXT_CONTENT_TYPE,
  type Lang,
} from '../contract.ts';
import { eventTime } from '../model/events.ts';
import { describeVotes, ORIGIN_NAMES } from '../model/agreement.ts';
import { snowflakeMs } from '../model/evidence.ts';
import type { Accuracy } from '../model/accuracy.ts';
import type { Forecast } from '../model/forecast.ts';
import type { ArchiveInfo } from '../model/inputs.ts';
import type {
  Announcement,
  Detail,
  Event,
  Localized,
  Signal,
  SourceCheck,
  TrackerWatch,
  UpstreamStatus,
} from '../model/schemas.ts';
import { computeForecastStaleAfter, computeStaleAfter } from '../model/freshness.ts';
import { RESET_SOURCE_KINDS, type TodayStatus } from '../model/status.ts';
import { outputDoc, PHASE, type OutputDocument } from './output.ts';
import { translateDetail, translator } from './i18n.ts';
import {
  announcementDataOf,
  creditsFor,
  type Credit,
  instantToSeconds,
  newestAmong,
  renderLicense,
  roundDeep,
  roundOrNull,
  roundProbability,
  spliceLastArray,
  timesToSeconds,
} from './values.ts';
import { buildOpenApi, documentSchema, type OpenApiOptions } from './openapi.ts';
import { renderBankedWarning, renderReach, renderReachToday, renderUpcoming } from './reach.ts';
import { bankedResetWarning, computeReachToday } from '../model/reach.ts';
import { API_VERSION, DOCUMENT_SCHEMAS, type DocumentSchemaName } from './schemas.ts';

/** The model's forecast fields that may be absent (then published as null): trailing rates, coverage, announcement. */
type OptionalForecastKey =
  | 'announced'
  | 'trailing_base_rate_24h'
  | 'trailing_base_rate_48h'
  | 'trailing_90d_base_rate_24h'
  | 'trailing_90d_base_rate_48h'
  | 'covered_until';

/** What the renderer is given: the computed state of one run, in the model's types. */
export interface RenderInput {
  asOf: Date;
  /** Merged, newest first. */
  events: readonly Event[];
  today: TodayStatus;
  latestReset: Event | null;
  latestVerifiedReset: Event | null;
  checks: readonly SourceCheck[];
  upstreamStatus: UpstreamStatus | null;
  signals: readonly Signal[];
  forecast: Omit<Forecast, 'window_days' | OptionalForecastKey> & Partial<Pick<Forecast, OptionalForecastKey>>;
  accuracy: Accuracy;
  archives: readonly ArchiveInfo[];
  /** The OpenAPI document's `servers` (the public base URL). */
  openapi?: OpenApiOptions;
  /** The announced reset still ahead (model/announcement.ts), or null. */
  upcoming?: Announcement | null;
  /** The upstream tracker's own watch while it lasts, or null. */
  trackerWatch?: TrackerWatch | null;
}

const RECENT_EVENTS = 10;
const LICENSE_URL = '/' + LICENSE_KEY;

export function renderEvent(e: Event, lang: Lang, t: TFunction): z.infer<typeof DOCUMENT_SCHEMAS.event>['event'] {
  const when = eventTime(e);
  const date = when.at.slice(0, 10);
  const reason = t(`common:reason.${e.reason}`);
  // A reset whose reason no source states is titled as what is known: a reset for everyone, no "other reason".
  const template = e.type === 'global_reset' && e.reason === 'other' ? 'global_reset_unstated' : e.type;
  // A text in the language, else in English, named in untranslated_fields.
  const untranslated: string[] = [];
  const text = (name: string, v: Localized | undefined): string | null => {
    if (!v) return null;
    if (v[lang] === undefined && lang !== 'en') untranslated.push(name);
    return v[lang] ?? v.en;
  };
  return {
    id: e.id,
    url: `/api/events/${e.id}?lang=${lang}`,
    type: e.type,
    status: e.status,
    reason: e.reason,
    origin: e.origin,
    title: text('title', e.title) ?? t(`common:title.${template}`, { reason }),
    summary: text('summary', e.summary) ?? t(`common:summary.${template}`, { date, reason }),
    scope: text('scope', e.scope) ?? t(`common:scope.${e.type}`),
    author_notes: text('author_notes', e.author_notes),
    verification_notes: text('verification_notes', e.verification_notes) ?? verificationNotes(e, date, t),
    evidence_text: e.evidence_text,
    time_precision: e.time_precision,
    time_basis: when.basis,
    occurred_at: instantToSeconds(when.at),
    announced_at: instantToSeconds(e.announced_at),
    observed_at: instantToSeconds(e.observed_at),
    effective_at: instantToSeconds(e.effective_at),
    sources: e.sources.map((s) => ({ ...s })),
    same_as: [...e.same_as],
    untranslated_fields: untranslated,
    reach: renderReach(e, t),
    recorded_by: (e.recorded_by ?? []).map((r) => ({ source: ORIGIN_NAMES[r.origin], ...r })),
    agreement: e.agreement ?? 'single_source',
    verification: e.verification ? { ...e.verification, read_at: instantToSeconds(e.verification.read_at) } : null,
  };
}

/** What the service checked of a global reset, and when, or why it did not verify it: in words, from `verification`. */
function verificationNotes(e: Event, date: string, t: TFunction): string | null {
  const v = e.verification;
  if (v === undefined) return null;
  const names = (origins: readonly Event['origin'][]) => origins.map((o) => ORIGIN_NAMES[o]).join(', ');
  return t(v.reason === null ? 'common:verification.verified' : `common:verification.${v.reason}`, {
    post: v.post_id ?? '',
    author: v.author ?? '',
    read_at: instantToSeconds(v.read_at) ?? '',
    post_at: v.post_id === null ? '' : formatInstant(snowflakeMs(v.post_id)),
    date,
    sources: names(v.sources),
    quoted: names(v.quoted_by),
    labels: describeVotes(e.recorded_by ?? []),
  });
}

/** The latest check of each source, in a stable order. */
function latestChecks(checks: readonly SourceCheck[]): SourceCheck[] {
  // Oldest first (a stable sort: of equal times the later stays later), so each source's newest check wins.
  const oldestFirst = checks.toSorted((a, b) => Date.parse(a.checked_at) - Date.parse(b.checked_at));
  return [...new Map(oldestFirst.map((c) => [c.source, c])).values()].sort((a, b) => a.source.localeCompare(b.source));
}

/** `doc`, validated against the `name` schema; `json()` must write JSON.stringify(doc)'s text from serialized parts. */
export function jsonDoc(
  name: DocumentSchemaName,
  key: string,
  lang: string | null,
  phase: number,
  doc: unknown,
  json = () => JSON.stringify(doc),
): OutputDocument {
  const r = DOCUMENT_SCHEMAS[name].safeParse(doc);
  if (!r.success) {
    const i = r.error.issues[0]!;
    const at = i.path.map(String).join('.') || '(root)';
    throw new Error(`[render] ${key} does not match the ${name} schema at ${at}: ${i.message}`);
  }
  return outputDoc(key, json(), lang, phase);
}

/** The meta fields every JSON document of the API has. */
const commonMeta = (license: string, credits: readonly Credit[] = []) => ({
  api_version: API_VERSION,
  docs: '/api/openapi.json',
  license,
  license_url: LICENSE_URL,
  credits,
});

const stableMetaOf = (events: readonly Event[], lang: Lang, license: string) =>
  timesToSeconds({ lang, updated_at: newestAmong(events), ...commonMeta(license, creditsFor(events)) });

/**
 * Event documents of every language (phase leaves), one at a time: each is rendered, validated, serialized and handed
 * on, and nothing of it is kept, so a sink that consumes them as they come holds a bounded number of bodies.
 */
function* stableEvents(input: RenderInput, license: string): Generator<OutputDocument> {
  for (const lang of LANGS) {
    const t = translator(lang);
    for (const e of input.events) {
      const doc = { meta: stableMetaOf([e], lang, license), event: renderEvent(e, lang, t) };
      yield jsonDoc('event', eventKey(lang, e.id), lang, PHASE.leaves, doc);
    }
  }
}

/**
 * History documents of every language (phase lists): per language and per `type` (null: every type), the archived
 * pages of HISTORY_PAGE_SIZE counted from the oldest event, then the newest document with the rest (contract.ts).
 * Each event is serialized once per language and spliced into the documents that list it.
 */
function* stableHistories(input: RenderInput, license: string): Generator<OutputDocument> {
  const oldestFirst = input.events.toReversed();
  const dates = input.events.map((e) => eventTime(e).at.slice(0, 10)).sort();
  for (const lang of LANGS) {
    const t = translator(lang);
    const json = new Map(oldestFirst.map((e) => [e, JSON.stringify(renderEvent(e, lang, t))]));
    const coverage = {
      partial: true,
      since: dates[0] ?? null,
      until: dates.at(-1) ?? null,
      archives: input.archives.map((a) => ({ name: a.name, url: a.url, records: a.records, notice: a.notice })),
      note: t('common:coverage.note', { since: dates[0] ?? '—' }),
    };
    for (const type of [null, ...EVENT_TYPES]) {
      const all = type === null ? oldestFirst : oldestFirst.filter((e) => e.type === type);
      const archived = archivedPageCount(all.length);
      // The events were validated in their own documents (stableEvents, same renderEvent): here only the envelope is.
      const doc = (name: 'history' | 'history-page', key: string, events: Event[], fields: object) => {
        const envelope = { meta: stableMetaOf(events, lang, license), type, ...fields, events: [] };
        const items = events.map((e) => json.get(e)!).reverse();
        return jsonDoc(name, key, lang, PHASE.lists, envelope, () => spliceLastArray(envelope, 'events', items));
      };
      for (let page = 1; page <= archived; page++) {
        const first = (page - 1) * HISTORY_PAGE_SIZE;
        yield doc('history-page', historyPageKey(lang, type, page), all.slice(first, first + HISTORY_PAGE_SIZE), {
          page,
          page_size: HISTORY_PAGE_SIZE,
          first_position: first + 1,
          next: page > 1 ? historyPagePath(lang, type, page - 1) : null,
        });
      }
      const key = type === null ? endpointKey(lang, 'history') : historyByTypeKey(lang, type);
      yield doc('history', key, all.slice(archived * HISTORY_PAGE_SIZE), {
        types: [...EVENT_TYPES],
        coverage,
        count: all.length,
        page_size: HISTORY_PAGE_SIZE,
        archived_pages: archived,
        next: archived > 0 ? historyPagePath(lang, type, archived) : null,
      });
    }
  }
}

/** The tracker's own watch while it lasts (it may name no end), clearly not our probability. */
function renderTrackerWatch(input: RenderInput, t: TFunction) {
  const w = input.trackerWatch ?? null;
  const now = input.asOf.getTime();
  if (w === null || Date.parse(w.observed_at) > now || Date.parse(w.expires_at ?? '9999-12-31') <= now) return null;
  const { first_seen_at: _seen, ...shown } = w;
  return { ...shown, note: t('forecast:tracker_watch_note') };
}

/** The forecast document after its meta: the model's numbers rounded, its explanation translated. */
function forecastBody(f: RenderInput['forecast'], t: TFunction, generatedAt: string) {
  return {
    probability_24h: roundProbability(f.probability_24h),
    probability_48h: roundProbability(f.probability_48h),
    base_rate_24h: roundOrNull(f.base_rate_24h),
    base_rate_48h: roundOrNull(f.base_rate_48h),
    trailing_base_rate_30d_24h: roundOrNull(f.trailing_base_rate_24h ?? null),
    trailing_base_rate_30d_48h: roundOrNull(f.trailing_base_rate_48h ?? null),
    trailing_base_rate_90d_24h: roundOrNull(f.trailing_90d_base_rate_24h ?? null),
    trailing_base_rate_90d_48h: roundOrNull(f.trailing_90d_base_rate_48h ?? null),
    compared_with: 'trailing_base_rate_90d',
    observed_until: f.covered_until ?? null,
    sample_size: f.sample_size,
    model_version: f.model_version,
    explanation: translateDetail(t, f.explanation, 'forecast'),
    issued_at: generatedAt,
    last_global_reset_at: instantToSeconds(f.last_global_reset_at),
    announced: f.announced ? timesToSeconds(roundDeep(f.announced)) : null,
  };
}

/** The accuracy document after its meta and note: scores rounded, the reasons for a missing skill translated. */
function accuracyBody(a: RenderInput['accuracy'], t: TFunction) {
  const why = (d: Detail | null) => (d === null ? null : translateDetail(t, d, 'forecast'));
  return {
    window_days: a.window_days,
    ...timesToSeconds(
      roundDeep({
        counts: a.counts,
        skill: Object.fromEntries(Object.entries(a.skill).map(([k, e]) => [k, { ...e, reason: why(e.reason) }])),
        scoring: a.scoring,
        summary_24h: a.summary.h24,
        summary_48h: a.summary.h48,
        reliability_24h: a.reliability.h24,
        reliability_48h: a.reliability.h48,
        // Deprecated aliases (schemas.ts), the same values under the names before the horizon rule.
        summary: a.summary,
        reliability: a.reliability,
        forecasts: a.forecasts,
        missed: a.missed,
      }),
    ),
  };
}

/** What every language's live documents share, computed once per build. */
function liveFacts(input: RenderInput, license: string) {
  const { asOf } = input;
  // The live documents' credits are computed from every event, the announcement and the watch.
  const announced = input.upcoming ? announcementDataOf(input.upcoming) : { tracker: false, timeline: false };
  const credits = creditsFor(input.events, { ...announced, tracker: announced.tracker || Boolean(input.trackerWatch) });
  const checkTimes = input.checks.map((c) => c.checked_at).sort();
  return {
    generatedAt: formatInstant(asOf),
    // The instant the edge stops serving this answer (model/freshness.ts), never before the build itself.
    staleAfter: formatInstant(computeStaleAfter(asOf, input.today)),
    // The forecast's own: it holds for the hours after its issue, whatever today's answer (model/forecast.ts).
    forecastStaleAfter: formatInstant(computeForecastStaleAfter(asOf)),
    common: commonMeta(license, credits),
    lastCheckAt: instantToSeconds(checkTimes.at(-1) ?? null),
    current: latestChecks(input.checks),
    reachToday: computeReachToday(input.events, asOf),
    bankedWarning: bankedResetWarning(input.events, input.upcoming ?? null, asOf),
  };
}

/** The upstream status as /api/status shows it, `updated_at` kept as the deprecated alias of `page_updated_at`. */
const upstreamDoc = ({ page_url, indicator, description, updated_at, fetched_at, components }: UpstreamStatus) =>
  timesToSeconds({ page_url, indicator, description, page_updated_at: updated_at, updated_at, fetched_at, components });

/** The documents of one language about the present: forecast, signals, accuracy, latest, status. */
function renderLive(input: RenderInput, lang: Lang, facts: ReturnType<typeof liveFacts>): OutputDocument[] {
  const t = translator(lang);
  // Only the few events the live documents show are rendered here.
  const ev = (e: Event) => renderEvent(e, lang, t);
  const meta = { lang, generated_at: facts.generatedAt, stale_after: facts.staleAfter, ...facts.common };
  const today = { ...timesToSeconds(input.today), explanation: translateDetail(t, input.today.explanation) };
  const todayFields = {
    today,
    today_reach: renderReachToday(facts.reachToday, input.events, input.asOf, t),
    banked_reset_warning: renderBankedWarning(facts.bankedWarning, input.asOf, t),
  };
  const upcoming = timesToSeconds(renderUpcoming(input.upcoming ?? null, t));
  const signals = input.signals.map(timesToSeconds);
  const doc = (name: 'forecast' | 'signals' | 'accuracy' | 'latest' | 'status', phase: number, body: object) =>
    jsonDoc(name, endpointKey(lang, name), lang, phase, { meta, ...body });
  return [
    doc('forecast', PHASE.lists, {
      meta: { ...meta, stale_after: facts.forecastStaleAfter },
      ...forecastBody(input.forecast, t, facts.generatedAt),
      tracker_watch: renderTrackerWatch(input, t),
    }),
    doc('signals', PHASE.lists, { note: t('common:signals.note'), count: signals.length, signals }),
    doc('accuracy', PHASE.lists, { note: t('common:accuracy.note'), ...accuracyBody(input.accuracy, t) }),
    doc('latest', PHASE.summaries, {
      reset: today.reset,
      latestReset: input.latestReset ? ev(input.latestReset) : null,
      latestVerifiedReset: input.latestVerifiedReset ? ev(input.latestVerifiedReset) : null,
      last_source_check_at: facts.lastCheckAt,
      ...todayFields,
      upcoming,
    }),
    doc('status', PHASE.summaries, {
      reset: today.reset,
      ...todayFields,
      recent_events: input.events.slice(0, RECENT_EVENTS).map(ev),
      source_checks: facts.current.map((c) => ({
        source: c.source,
        kind: c.kind,
        url: c.url,
        ok: c.ok,
        http_status: c.http_status,
        latency_ms: c.latency_ms,
        items_read: c.items_read,
        checked_at: formatInstant(c.checked_at),
        detail_code: c.detail.code,
        detail: translateDetail(t, c.detail, 'checks'),
        affects_today: (RESET_SOURCE_KINDS as readonly string[]).includes(c.kind),
      })),
      upstream_status: input.upstreamStatus === null ? null : upstreamDoc(input.upstreamStatus),
      upcoming,
    }),
  ];
}

/** The language-independent documents: the index, OpenAPI, the JSON Schemas, the license texts, the not-found answer. */
function renderContract(input: RenderInput, license: string): OutputDocument[] {
  const names = Object.keys(DOCUMENT_SCHEMAS) as DocumentSchemaName[];
  const index = {
    meta: { lang: 'en', ...commonMeta(license) },
    api_version: API_VERSION,
    languages: LANGS,
    default_language: 'en',
    types: EVENT_TYPES,
    endpoints: Object.entries({
      '/api/latest': 'Has a global reset happened today, and the latest resets.',
      '/api/status': "Today's state, recent events, source checks, upstream status.",
      '/api/history':
        'Recorded events, newest first: the newest 100 to 199 and a next link; ?page=N for older pages of 100 (from the oldest); ?type= filters by event type.',
      '/api/events/{id}': 'One event.',
      '/api/forecast': 'Probability of a global reset in the next 24h and 48h.',
      '/api/signals': 'Public signals awaiting review.',
      '/api/accuracy': 'How good past forecasts were (Brier scores).',
      '/api/feed.atom': 'Atom feed of recorded and announced resets.',
      '/api/feed.json': 'JSON Feed 1.1 of recorded and announced resets.',
      '/api/calendar.ics': 'iCalendar of recorded and announced resets.',
      '/api/badge.json': "Today's state as a shields.io endpoint badge.",
      '/api/badge.svg': "Today's state as an SVG badge.",
    }).map(([path, description]) => ({ path, description })),
    openapi: '/api/openapi.json',
    license_url: LICENSE_URL,
    schemas: names.map((n) => `/api/schemas/${n}.json`),
    license,
  };
  const messages = Object.fromEntries(LANGS.map((l) => [l, translator(l)('errors:missing_object')]));
  const notFound = { error: { status: 404, code: 'not_found', message: messages.en, messages }, meta: { lang: null } };
  return [
    jsonDoc('index', 'api/index.json', 'en', PHASE.summaries, index),
    outputDoc('api/openapi.json', JSON.stringify(buildOpenApi(input.openapi)), 'en', PHASE.schemas),
    ...names.map((n) => outputDoc(`api/schemas/${n}.json`, JSON.stringify(documentSchema(n)), 'en', PHASE.schemas)),
    outputDoc(LICENSE_KEY, renderLicense(input.archives), 'en', PHASE.leaves, TEXT_CONTENT_TYPE),
    jsonDoc('error', NOT_FOUND_KEY, NOT_FOUND_CONTENT_LANGUAGE, PHASE.leaves, notFound),
  ];
}

/**
 * What a build publishes, in two parts: `eager`, the few documents about the present and the contract (the pages and
 * the unknown variants are made from them), and `stable()`, the event documents and the history pages, produced one at
 * a time in phase order as a sink consumes them (their number grows with the events).
 */
export function renderApiParts(input: RenderInput) {
  const license = input.archives.map((a) => a.notice).join(' ') || 'No third-party data.';
  const facts = liveFacts(input, license);
  return {
    eager: [...LANGS.flatMap((lang) => renderLive(input, lang, facts)), ...renderContract(input, license)],
    stable: function* () {
      yield* stableEvents(input, license);
      yield* stableHistories(input, license);
    },
  };
}

/** Every document of a build at once (tests, the page bench): the eager ones, then the stable ones. */
export function renderApi(input: RenderInput): OutputDocument[] {
  const r = renderApiParts(input);
  return [...r.eager, ...r.stable()];
}
