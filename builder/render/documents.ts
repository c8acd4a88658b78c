// Pure: one JSON document per endpoint × language (plus history per type and one per event), validated against the
// response schemas, and the OpenAPI document generated from them.
import type { TFunction } from 'i18next';
import { z } from 'zod';
import {
  archivedPageCount,
  EVENT_TYPES,
  formatInstant,
  HISTORY_PAGE_SIZE,
  historyByTypeKey,
  historyPageKey,
  historyPagePath,
  type EventType,
  LANGS,
  LICENSE_KEY,
  NOT_FOUND_CONTENT_LANGUAGE,
  NOT_FOUND_KEY,
  TEXT_CONTENT_TYPE,
  type Lang,
} from '../contract.ts';
import { eventTime } from '../model/events.ts';
import type { Event, Localized, SourceCheck } from '../model/schemas.ts';
import { computeStaleAfter } from '../model/freshness.ts';
import { RESET_SOURCE_KINDS } from '../model/status.ts';
import { outputDoc, PHASE, type OutputDocument } from './output.ts';
import { translateDetail, translator } from './i18n.ts';
import {
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
import { buildOpenApi, documentSchemas } from './openapi.ts';
import { renderBankedWarning, renderReach, renderReachToday, renderUpcoming } from './reach.ts';
import { bankedResetWarning, computeReachToday } from '../model/reach.ts';
import type { RenderInput } from './input.ts';
import { API_VERSION, DOCUMENT_SCHEMAS, type DocumentSchemaName } from './schemas.ts';

export type { RenderInput } from './input.ts';

const RECENT_EVENTS = 10;
const LICENSE_URL = '/' + LICENSE_KEY;

export function renderEvent(e: Event, lang: Lang, t: TFunction): z.infer<typeof DOCUMENT_SCHEMAS.event>['event'] {
  const when = eventTime(e);
  const date = when.at.slice(0, 10);
  const reason = t(`common:reason.${e.reason}`);
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
    title: text('title', e.title) ?? t(`common:title.${e.type}`, { reason }),
    summary: text('summary', e.summary) ?? t(`common:summary.${e.type}`, { date, reason }),
    scope: text('scope', e.scope) ?? t(`common:scope.${e.type}`),
    author_notes: text('author_notes', e.author_notes),
    verification_notes: text('verification_notes', e.verification_notes),
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
  };
}

/** The latest check of each source, in a stable order. */
function latestChecks(checks: readonly SourceCheck[]): SourceCheck[] {
  const by = new Map<string, SourceCheck>();
  for (const c of checks) {
    const prev = by.get(c.source);
    if (!prev || Date.parse(c.checked_at) >= Date.parse(prev.checked_at)) by.set(c.source, c);
  }
  return [...by.values()].sort((a, b) => a.source.localeCompare(b.source));
}

/**
 * Validates `doc` and returns its JSON: `JSON.stringify(doc)`, or `json()` when given, which must produce the same
 * text from parts already serialized.
 */
function validate(name: DocumentSchemaName, key: string, doc: unknown, json?: () => string): string {
  const r = DOCUMENT_SCHEMAS[name].safeParse(doc);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new Error(
      `[render] ${key} does not match the ${name} schema at ${i.path.map(String).join('.') || '(root)'}: ${i.message}`,
    );
  }
  return json ? json() : JSON.stringify(doc);
}

type Add = (name: DocumentSchemaName, key: string, lang: string | null, phase: number, doc: unknown) => void;

/** The meta fields every JSON document of the API has. */
const commonMeta = (license: string, credits: readonly Credit[] = []) => ({
  api_version: API_VERSION,
  docs: '/api/openapi.json',
  license,
  license_url: LICENSE_URL,
  credits: credits.map((c) => ({ ...c })),
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
      const key = `api/${lang}/events/${e.id}.json`;
      const doc = { meta: stableMetaOf([e], lang, license), event: renderEvent(e, lang, t) };
      yield outputDoc(key, validate('event', key, doc), lang, PHASE.leaves);
    }
  }
}

/**
 * History documents of every language (phase lists): per language and per `type` (null: every type), the archived
 * pages of HISTORY_PAGE_SIZE counted from the oldest event and the newest document with the rest (contract.ts). One
 * pass per language, oldest event first, serializes each event once and keeps at most the newest document's events
 * per variant: a page is handed on as soon as it is full.
 */
function* stableHistories(input: RenderInput, license: string): Generator<OutputDocument> {
  const variants: (EventType | null)[] = [null, ...EVENT_TYPES];
  const allDates = input.events.map((e) => eventTime(e).at.slice(0, 10)).sort();
  // input.events is newest first; positions count from the oldest.
  const count = new Map<EventType | null, number>(variants.map((v) => [v, v === null ? input.events.length : 0]));
  for (const e of input.events) count.set(e.type, count.get(e.type)! + 1);
  for (const lang of LANGS) {
    const t = translator(lang);
    const state = new Map(
      variants.map((v) => [
        v,
        { archived: archivedPageCount(count.get(v)!), seen: 0, events: [] as Event[], json: [] as string[] },
      ]),
    );
    type State = typeof state extends Map<unknown, infer S> ? S : never;
    // The events were validated in their own documents (stableEvents, same renderEvent): here only the envelope is.
    const out = (key: string, name: 'history' | 'history-page', doc: Record<string, unknown>, st: State) => {
      const body = validate(name, key, doc, () => spliceLastArray(doc, 'events', st.json.slice().reverse()));
      st.events.length = 0;
      st.json.length = 0;
      return outputDoc(key, body, lang, PHASE.lists);
    };
    for (let i = input.events.length - 1; i >= 0; i--) {
      const e = input.events[i]!;
      const json = JSON.stringify(renderEvent(e, lang, t));
      for (const v of [null, e.type]) {
        const st = state.get(v)!;
        st.events.push(e);
        st.json.push(json);
        st.seen++;
        const page = st.seen / HISTORY_PAGE_SIZE;
        if (Number.isInteger(page) && page <= st.archived) {
          const doc = {
            meta: stableMetaOf(st.events, lang, license),
            type: v,
            page,
            page_size: HISTORY_PAGE_SIZE,
            first_position: (page - 1) * HISTORY_PAGE_SIZE + 1,
            next: page > 1 ? historyPagePath(lang, v, page - 1) : null,
            events: [],
          };
          yield out(historyPageKey(lang, v, page), 'history-page', doc, st);
        }
      }
    }
    for (const v of variants) {
      const st = state.get(v)!;
      const doc = {
        meta: stableMetaOf(st.events, lang, license),
        type: v,
        types: [...EVENT_TYPES],
        coverage: {
          partial: true,
          since: allDates[0] ?? null,
          until: allDates.at(-1) ?? null,
          archives: input.archives.map((a) => ({ name: a.name, url: a.url, records: a.records, notice: a.notice })),
          note: t('common:coverage.note', { since: allDates[0] ?? '—' }),
        },
        count: count.get(v)!,
        page_size: HISTORY_PAGE_SIZE,
        archived_pages: st.archived,
        next: st.archived > 0 ? historyPagePath(lang, v, st.archived) : null,
        events: [],
      };
      yield out(v === null ? `api/${lang}/history.json` : historyByTypeKey(lang, v), 'history', doc, st);
    }
  }
}

/** The tracker's own watch while it lasts (it may name no end), clearly not our probability. */
function renderTrackerWatch(input: RenderInput, t: TFunction) {
  const w = input.trackerWatch ?? null;
  if (
    w === null ||
    Date.parse(w.observed_at) > input.asOf.getTime() ||
    (w.expires_at !== null && Date.parse(w.expires_at) <= input.asOf.getTime())
  )
    return null;
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
  return {
    window_days: a.window_days,
    ...timesToSeconds(
      roundDeep({
        counts: a.counts,
        skill: Object.fromEntries(
          Object.entries(a.skill).map(([k, e]) => [
            k,
            { ...e, reason: e.reason === null ? null : translateDetail(t, e.reason, 'forecast') },
          ]),
        ),
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
  return {
    license,
    // The live documents' credits are computed from every event, the announcement and the watch.
    credits: creditsFor(input.events, (input.upcoming ?? null) !== null || (input.trackerWatch ?? null) !== null),
    generatedAt: formatInstant(asOf),
    // The instant the edge stops serving this answer (model/freshness.ts), never before the build itself.
    staleAfter: formatInstant(computeStaleAfter(asOf, input.today)),
    lastCheckAt: instantToSeconds(
      input.checks.reduce<string | null>((m, c) => (m === null || c.checked_at > m ? c.checked_at : m), null),
    ),
    current: latestChecks(input.checks),
    reachToday: computeReachToday(input.events, asOf),
    bankedWarning: bankedResetWarning(input.events, input.upcoming ?? null, asOf),
  };
}

/** The documents of one language about the present: latest, status, forecast, signals, accuracy. */
function renderLive(input: RenderInput, lang: Lang, shared: ReturnType<typeof liveFacts>, add: Add): void {
  const t = translator(lang);
  // Only the few events the live documents show are rendered here.
  const ev = (e: Event) => renderEvent(e, lang, t);
  const meta = {
    lang,
    generated_at: shared.generatedAt,
    stale_after: shared.staleAfter,
    ...commonMeta(shared.license, shared.credits),
  };
  const today = timesToSeconds({
    ...input.today,
    event_ids: [...input.today.event_ids],
    explanation: translateDetail(t, input.today.explanation),
  });
  const todayReach = renderReachToday(shared.reachToday, input.events, input.asOf, t);
  const bankedWarning = renderBankedWarning(shared.bankedWarning, input.asOf, t);
  const upcoming = timesToSeconds(renderUpcoming(input.upcoming ?? null, t));
  add('forecast', `api/${lang}/forecast.json`, lang, PHASE.lists, {
    meta,
    ...forecastBody(input.forecast, t, shared.generatedAt),
    tracker_watch: renderTrackerWatch(input, t),
  });
  add('signals', `api/${lang}/signals.json`, lang, PHASE.lists, {
    meta,
    note: t('common:signals.note'),
    count: input.signals.length,
    signals: input.signals.map((s) => timesToSeconds({ ...s })),
  });
  const accuracy = { meta, note: t('common:accuracy.note'), ...accuracyBody(input.accuracy, t) };
  add('accuracy', `api/${lang}/accuracy.json`, lang, PHASE.lists, accuracy);
  add('latest', `api/${lang}/latest.json`, lang, PHASE.summaries, {
    meta,
    reset: today.reset,
    latestReset: input.latestReset ? ev(input.latestReset) : null,
    latestVerifiedReset: input.latestVerifiedReset ? ev(input.latestVerifiedReset) : null,
    last_source_check_at: shared.lastCheckAt,
    today,
    today_reach: todayReach,
    banked_reset_warning: bankedWarning,
    upcoming,
  });
  const u = input.upstreamStatus;
  add('status', `api/${lang}/status.json`, lang, PHASE.summaries, {
    meta,
    reset: today.reset,
    today,
    today_reach: todayReach,
    banked_reset_warning: bankedWarning,
    recent_events: input.events.slice(0, RECENT_EVENTS).map(ev),
    source_checks: shared.current.map((c) => ({
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
    upstream_status: u
      ? timesToSeconds({
          page_url: u.page_url,
          indicator: u.indicator,
          description: u.description,
          page_updated_at: u.updated_at,
          updated_at: u.updated_at,
          fetched_at: u.fetched_at,
          components: u.components.map((c) => ({ ...c })),
        })
      : null,
    upcoming,
  });
}

/** The language-independent documents: the index, OpenAPI, the JSON Schemas, the license texts, the not-found answer. */
function renderContract(input: RenderInput, license: string, add: Add, docs: OutputDocument[]): void {
  const schemaNames = Object.keys(DOCUMENT_SCHEMAS) as DocumentSchemaName[];
  add('index', 'api/index.json', 'en', PHASE.summaries, {
    meta: { lang: 'en', ...commonMeta(license) },
    api_version: API_VERSION,
    languages: [...LANGS],
    default_language: 'en',
    types: [...EVENT_TYPES],
    endpoints: [
      { path: '/api/latest', description: 'Has a global reset happened today, and the latest resets.' },
      { path: '/api/status', description: "Today's state, recent events, source checks, upstream status." },
      {
        path: '/api/history',
        description:
          'Recorded events, newest first: the newest 100 to 199 and a next link; ?page=N for older pages of 100 (from the oldest); ?type= filters by event type.',
      },
      { path: '/api/events/{id}', description: 'One event.' },
      { path: '/api/forecast', description: 'Probability of a global reset in the next 24h and 48h.' },
      { path: '/api/signals', description: 'Public signals awaiting review.' },
      { path: '/api/accuracy', description: 'How good past forecasts were (Brier scores).' },
      { path: '/api/feed.atom', description: 'Atom feed of recorded and announced resets.' },
      { path: '/api/feed.json', description: 'JSON Feed 1.1 of recorded and announced resets.' },
      { path: '/api/calendar.ics', description: 'iCalendar of recorded and announced resets.' },
      { path: '/api/badge.json', description: "Today's state as a shields.io endpoint badge." },
      { path: '/api/badge.svg', description: "Today's state as an SVG badge." },
    ],
    openapi: '/api/openapi.json',
    license_url: LICENSE_URL,
    schemas: schemaNames.map((n) => `/api/schemas/${n}.json`),
    license,
  });
  docs.push(outputDoc('api/openapi.json', JSON.stringify(buildOpenApi(input.openapi)), 'en', PHASE.schemas));
  const published = documentSchemas();
  for (const n of schemaNames)
    docs.push(outputDoc(`api/schemas/${n}.json`, JSON.stringify(published[n]), 'en', PHASE.schemas));
  docs.push(outputDoc(LICENSE_KEY, renderLicense(input.archives), 'en', PHASE.leaves, TEXT_CONTENT_TYPE));
  const messages = Object.fromEntries(LANGS.map((l) => [l, translator(l)('errors:missing_object')]));
  const notFound = { error: { status: 404, code: 'not_found', message: messages.en, messages }, meta: { lang: null } };
  const body = validate('error', NOT_FOUND_KEY, notFound);
  docs.push(outputDoc(NOT_FOUND_KEY, body, NOT_FOUND_CONTENT_LANGUAGE, PHASE.leaves));
}

/**
 * What a build publishes, in two parts: `eager`, the few documents about the present and the contract (the pages and
 * the unknown variants are made from them), and `stable()`, the event documents and the history pages, produced one at
 * a time in phase order as a sink consumes them (their number grows with the events; holding them all would cost
 * about 39 KiB per event).
 */
export function renderApiParts(input: RenderInput): {
  eager: OutputDocument[];
  stable: () => Generator<OutputDocument>;
} {
  const license = input.archives.map((a) => a.notice).join(' ') || 'No third-party data.';
  const docs: OutputDocument[] = [];
  const add: Add = (name, key, lang, phase, doc) => docs.push(outputDoc(key, validate(name, key, doc), lang, phase));
  const shared = liveFacts(input, license);
  for (const lang of LANGS) renderLive(input, lang, shared, add);
  renderContract(input, license, add, docs);
  return {
    eager: docs,
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
