// Response schemas: the build validates every document against them, and the OpenAPI document and JSON Schemas
// are generated from the very same definitions.
import { z } from 'zod';
import { ERROR_CODES, EVENT_TYPES, HISTORY_PAGE_SIZE, LANGS } from '../contract.ts';
import {
  AGREEMENTS,
  LIMITS,
  ORIGINS,
  PLANS,
  PRODUCTS,
  REASONS,
  RecordedBySchema,
  SIGNAL_KINDS,
  TIME_BASES,
  TIME_PRECISIONS,
  SOURCE_KINDS,
  TrackerWatchSchema,
  VerificationSchema,
} from '../model/schemas.ts';
import { FORECAST_STALE_AFTER_MS } from '../model/forecast.ts';
import { USER_PLANS, type UserPlan } from '../model/reach.ts';
import { TODAY_STATES } from '../model/status.ts';

/** How long a forecast holds, in the words of the descriptions. */
const FORECAST_HOLDS = `${FORECAST_STALE_AFTER_MS / 60_000} minutes after issued_at`;

// The API's one timestamp format (contract.ts INSTANT_PATTERN): UTC to the second, no fraction.
const instant = z.iso.datetime({ offset: false, precision: 0 });
const instantOrNull = instant.nullable();
const dateOrNull = z.iso.date().nullable();
const instantOrDate = z.union([instant, z.iso.date()]);
const instantOrDateOrNull = instantOrDate.nullable();
const probabilityOrNull = z.number().gt(0).lt(1).nullable();
const share = z.number().min(0).max(1);
const shareOrNull = share.nullable();
const count = z.number().int().nonnegative();
const positive = z.number().int().positive();
// Shapes many fields share (each `.describe()` makes its own copy).
const str = z.string();
const strOrNull = z.string().nullable();
const strings = z.array(str);
const bool = z.boolean();
const eventType = z.enum(EVENT_TYPES);
const source = z.strictObject({ platform: str, url: str, author: str.optional() });

export const API_VERSION = '1';

/** A field kept for api_version 1 only: the same value as the field(s) `of`. */
const deprecatedAlias = <T extends z.ZodType>(schema: T, of: string) =>
  schema.meta({ deprecated: true, description: `Deprecated alias of ${of}; removed in api_version 2.` });

/** A document part published as its own named schema (a component of the OpenAPI document). */
const named = <S extends z.ZodRawShape>(id: string, shape: S, description?: string) =>
  z.strictObject(shape).meta(description === undefined ? { id } : { id, description });

const credit = z.strictObject({
  name: str,
  url: str,
  notice: str.describe('The credit in the words the source asks for ("Data: codex-reset.com"); show it with the link.'),
});

const metaCommon = {
  api_version: z.literal(API_VERSION),
  docs: str.describe('Path of the OpenAPI document.'),
  license: str.describe('Notice for data derived from third-party archives.'),
  license_url: str.describe('Path of the full license texts of that data (plain text).'),
  credits: z
    .array(credit)
    .describe(
      'The data sources this document shows data from, with the link and wording each asks for (codex-resets.com for its reset records, labels, announcements and watches; codex-reset.com for its records, labels and announced windows); empty when it shows none. Whoever passes this data on must show these credits on the same surface.',
    ),
};

/** Meta of a live document (latest, status, forecast, signals, accuracy): it describes the present, so it says when. */
export const MetaSchema = named('Meta', {
  lang: z.enum(LANGS),
  generated_at: instant.describe('When the builder produced this document.'),
  stale_after: instant.describe(
    `Past it, treat the document as out of date: today's state as unknown, the forecast as no probability. For latest, status, signals and accuracy: 30 minutes after the last successful reset-source check, never past the next UTC midnight; a day with a recorded reset holds until midnight. For the forecast: ${FORECAST_HOLDS} (never longer than the hour ResetBench's collector accepts). The CDN then serves the unknown answer, or the expired forecast, itself.`,
  ),
  ...metaCommon,
});

/** Meta of a stable document (events, history): no build time, so its bytes and ETag change only with its content. */
export const StableMetaSchema = named('StableMeta', {
  lang: z.enum(LANGS),
  updated_at: instantOrDateOrNull.describe(
    'The newest time recorded in the content (announced, observed or effective time of its newest event); null when it lists no event. Derived from the content, not the build time.',
  ),
  ...metaCommon,
});

/** Meta of the index: stable and language-independent. */
export const IndexMetaSchema = named('IndexMeta', { lang: z.literal('en'), ...metaCommon });

const quote = strOrNull.describe(
  "The post's own words this field was read from (never translated); null when the post does not state it.",
);
const label = str.describe(
  'The value in words, translated; "not stated" (translated) when the post does not state it.',
);

/** A value read from the post (null: not stated) with its `description`, its label and the post's words. */
const stated = <T extends z.ZodType>(value: T, description?: string) => {
  const nullable = value.nullable();
  return z.strictObject({ value: description === undefined ? nullable : nullable.describe(description), label, quote });
};

export const ReachDocSchema = named(
  'Reach',
  {
    reviewed: bool.describe(
      'Whether a reviewer read this event\'s post for its reach. When false every field is null and "not stated": nothing is guessed.',
    ),
    summary: str.describe(
      'What the post states, in one translated line ("all paid plans · weekly limit · lands by 2026-07-21 17:47 UTC").',
    ),
    plans: stated(
      z.array(z.enum(PLANS)),
      'The plans the post names; `all`: everyone or every plan; `all_paid`: every paid plan. null: not stated.',
    ).describe('The plans the reset reached.'),
    products: stated(z.array(z.enum(PRODUCTS))).describe('The products whose limits it reset or credited.'),
    models: stated(
      strings,
      'The model(s) the reset is for, as the post names them; null when it is not for one model.',
    ),
    cohort: stated(positive, 'How many users it reached, when the post says.'),
    limits: stated(
      z.array(z.enum(LIMITS)),
      '`five_hour` and `weekly`: the windows it reset, when the post names them; `banked_reset`: it credits a banked reset.',
    ).describe('Which limits it reset or credited.'),
    landing: z
      .strictObject({
        from: instantOrNull.describe("When it started landing: the post's time."),
        until: instantOrNull.describe(
          'When it has landed for everyone, when the post bounds it exactly ("over the next 10 mins"); null otherwise.',
        ),
        as_written: strOrNull.describe(
          'The post\'s words for when it lands, never translated ("Should land over next 30 minutes", "Lands end of day").',
        ),
        label,
        quote,
      })
      .describe('The landing window, read from the post.'),
  },
  'Whom a reset reached and when it lands, read from its post by a reviewer (data/reach-review.json).',
);

const RecordedByDocSchema = named(
  'RecordedBy',
  {
    source: str.describe(
      "The source's name: codex-reset-ledger, reviewed archive, codex-resets.com or codex-reset.com.",
    ),
    origin: z.enum(ORIGINS),
    record_id: str.describe("The source's record (an event id of this API, or the source's own id)."),
    label: str.describe(
      "The source's own word for it, never translated (`regular`, `banked`, `reset/hard/announced/live`, `credits/banked/archive`, `boost`, a ledger type).",
    ),
    reads_as: RecordedBySchema.shape.reads_as.describe(
      'How this API reads that word. `announcement` and `unconfirmed` take no side.',
    ),
  },
  "One source's record of an event.",
);

const VerificationDocSchema = named(
  'Verification',
  {
    state: VerificationSchema.shape.state,
    reason: VerificationSchema.shape.reason.describe(
      'null when verified; otherwise the first rule that failed: `single_source`, `disputed`, `sources_disagreed`, `no_post`, `not_read` (not read yet), `verification_off`, `post_not_found`, `post_unreadable` (tried again later), `author_not_official`, `text_differs`, `date_differs`.',
    ),
    post_id: strOrNull.describe("The official X post checked: the event's primary evidence."),
    author: strOrNull.describe("The post's account as X's oEmbed endpoint named it (author_url), when read."),
    read_at: instantOrNull.describe('When the service last read the post itself.'),
    sources: z.array(z.enum(ORIGINS)).describe('The sources that call it a global reset.'),
    quoted_by: z.array(z.enum(ORIGINS)).describe("The sources whose quote of the post was compared with X's text."),
  },
  "Verified means the service itself read the official post from X (oEmbed), found its author on the reviewed list of official accounts, its text matching what the sources quote and its time on the reset's UTC date, and at least two independent sources calling it a global reset with none disagreeing. `verification_notes` says the same in words.",
);

export const EventDocSchema = named('Event', {
  id: str,
  url: str.describe('Path of this event in the API.'),
  type: eventType,
  status: z.enum(['archived', 'verified']),
  reason: z.enum(REASONS),
  origin: z.enum(ORIGINS),
  title: str,
  summary: str,
  scope: str,
  author_notes: strOrNull,
  verification_notes: strOrNull,
  evidence_text: str.describe('The original announcement, never translated.'),
  time_precision: z.enum(TIME_PRECISIONS),
  time_basis: z.enum(TIME_BASES),
  occurred_at: instantOrDate.describe('The time named by time_basis: effective, else observed, else announced.'),
  announced_at: instantOrDateOrNull,
  observed_at: instantOrDateOrNull,
  effective_at: instantOrDateOrNull,
  sources: z.array(source),
  same_as: strings,
  untranslated_fields: strings.describe('Fields shown in their original language because no translation exists yet.'),
  reach: ReachDocSchema.nullable().describe(
    'Whom the reset reached and when it lands; null for an event that is not a reset (a policy change).',
  ),
  recorded_by: z
    .array(RecordedByDocSchema)
    .describe(
      'Every source that records this event, or labels a post it cites, with its own word for it: curated history (the codex-reset-ledger import, the reviewed archive), codex-resets.com and codex-reset.com.',
    ),
  agreement: z
    .enum(AGREEMENTS)
    .describe(
      '`agreed`: two or more independent sources call it this type and none calls it anything else; `single_source`: one source records it (a record, not evidence); `disputed`: the sources disagree and no review has settled it (never verified; a disputed reset curated history does not hold is not counted by the forecast); `reviewed`: they disagreed and a review decided its type.',
    ),
  verification: VerificationDocSchema.nullable().describe(
    'For a global reset: what the service checked itself, or why it did not verify it (null for other events and for a record a maintainer verified by hand).',
  ),
});

export const TodaySchema = named('Today', {
  date: dateOrNull.describe(
    'The UTC date the state is about. null only in the edge\'s "builds stopped" answer (state unknown), served once no build has run for more than 3 UTC dates after the last one: it names no day rather than a wrong one.',
  ),
  state: z.enum(TODAY_STATES),
  reset: bool.nullable(),
  event_ids: strings,
  last_good_check_at: instantOrNull,
  valid_until: instantOrNull,
  explanation: str,
});

export const UpcomingDocSchema = named(
  'Upcoming',
  {
    id: str.describe("The announcement's id; the recorded reset usually takes the same id once applied."),
    type: eventType.nullable().describe('null: the tracker announced a kind of reset this API does not know.'),
    announced_at: instant,
    scheduled_for: instantOrNull.describe('When the reset is to land; null when the announcement named no time.'),
    text: str.describe("The announcement's own words, never translated."),
    source_url: strOrNull.describe(
      'The original post; null for an observed announcement the tracker gave no link for.',
    ),
    source: source.nullable(),
    summary: str.describe('A translated one-line summary.'),
  },
  'A reset announced but not recorded yet. It stops being upcoming once a matching reset is recorded, or 3 hours after its time (scheduled_for, else 24 hours after announced_at) with none recorded: then it becomes a signal awaiting review (kind overdue_announcement).',
);

const planAnswer = z.enum(['yes', 'no', 'not_stated']);

export const ReachTodaySchema = named('ReachToday', {
  event_ids: strings.describe(
    "Today's resets (UTC date), those narrowed to some plans, one model or a cohort included, and one still landing: they need not count as a global reset.",
  ),
  plans: z
    .strictObject(Object.fromEntries(USER_PLANS.map((p) => [p, planAnswer])) as Record<UserPlan, typeof planAnswer>)
    .describe(
      "Per plan: `yes` when one of today's posts names the plan, every plan, or every paid plan (for a paid one); `no` when they name plans and not this one; `not_stated` when one names none or nobody reviewed it.",
    ),
  summary: str.describe('What today\'s posts state, translated (each reset\'s reach summary, joined by " / ").'),
  propagating_until: instantOrNull.describe(
    'While a reset is still landing: when its post says it has landed for everyone; else null.',
  ),
  note: strOrNull.describe('"propagating until 17:30 UTC", translated, while propagating_until is set; else null.'),
});

export const BankedResetWarningSchema = named('BankedResetWarning', {
  kind: z
    .enum(['announced', 'landing'])
    .describe(
      '`announced`: a global reset is announced and not recorded yet (`upcoming`); `landing`: a global reset is still inside the landing window its post states.',
    ),
  at: instantOrNull.describe(
    'When the announced reset is to land (null: the announcement named no time), or when the landing one has landed for everyone.',
  ),
  note: str.describe(
    '"A global reset is announced for 17:00 UTC: using a banked reset now may waste it.", translated: the announcement restated, never a forecast.',
  ),
});

/** Today's state as latest and status both carry it, with the announced reset still ahead. */
const todayFields = {
  today: TodaySchema,
  today_reach: ReachTodaySchema.nullable().describe(
    "Whom today's resets reached, per plan, and until when one is landing; null when no reset is recorded or landing today (and in the unknown answer).",
  ),
  banked_reset_warning: BankedResetWarningSchema.nullable().describe(
    'Said next to a banked reset while a global reset is announced or landing: using a banked reset then may waste it. null otherwise.',
  ),
};
const upcoming = UpcomingDocSchema.nullable().describe('The announced reset still ahead, or null.');

export const LatestDocSchema = named('Latest', {
  meta: MetaSchema,
  reset: bool
    .nullable()
    .describe('true: a global reset today; false: fresh checks found none; null: unknown (never false then).'),
  latestReset: EventDocSchema.nullable(),
  latestVerifiedReset: EventDocSchema.nullable(),
  last_source_check_at: instantOrNull,
  ...todayFields,
  upcoming,
});

export const CoverageSchema = z.strictObject({
  partial: z.literal(true),
  since: dateOrNull,
  until: dateOrNull,
  archives: z.array(z.strictObject({ name: str, url: str, records: z.number().int(), notice: str })),
  note: str,
});

export const HistoryDocSchema = named(
  'History',
  {
    meta: StableMetaSchema,
    type: eventType.nullable(),
    types: z.array(eventType),
    coverage: CoverageSchema,
    count: count.describe(
      'How many events are recorded (of `type`, when given): all of them, not only those in this document.',
    ),
    page_size: z.literal(HISTORY_PAGE_SIZE).describe('Events per archived page.'),
    archived_pages: count.describe(
      'How many older pages are archived: `?page=1` (the oldest events) to `?page=archived_pages`.',
    ),
    next: strOrNull.describe(
      'The path of the next older page (the newest archived one), or null when this document lists every event.',
    ),
    events: z
      .array(EventDocSchema)
      .describe(
        `The newest events, newest first: all of them when fewer than ${2 * HISTORY_PAGE_SIZE} are recorded, else the ${HISTORY_PAGE_SIZE} to ${2 * HISTORY_PAGE_SIZE - 1} not yet archived.`,
      ),
  },
  `The newest recorded events. Older events are archived in pages of ${HISTORY_PAGE_SIZE}, counted from the oldest (\`?page=N\`, a HistoryPage); follow \`next\` from here to page 1 to read every event exactly once.`,
);

export const HistoryPageDocSchema = named(
  'HistoryPage',
  {
    meta: StableMetaSchema,
    type: eventType.nullable(),
    page: positive.describe(
      'This page: it holds events first_position to first_position + page_size - 1, counted from the oldest (1).',
    ),
    page_size: z.literal(HISTORY_PAGE_SIZE),
    first_position: positive,
    next: strOrNull.describe('The path of the next older page, or null on page 1.'),
    events: z.array(EventDocSchema).describe('The events of this page, newest first.'),
  },
  'An archived page of history (`/api/history?page=N`): never rewritten when a newer event is added, so it can be cached for long. It carries no count or coverage, which change with every event; the newest history document has them.',
);

export const EventResponseSchema = named('EventResponse', { meta: StableMetaSchema, event: EventDocSchema });

export const ForecastDocSchema = named(
  'Forecast',
  {
    meta: MetaSchema,
    probability_24h: probabilityOrNull.describe(
      'null: no reliable probability (never 0): too little history, the reset sources unobserved for over 6 h, or the forecast past meta.stale_after (the expired forecast).',
    ),
    probability_48h: probabilityOrNull,
    // An observed frequency, not a model output: every window of the year having a reset makes it exactly 1.
    base_rate_24h: shareOrNull,
    base_rate_48h: shareOrNull,
    trailing_base_rate_30d_24h: shareOrNull.describe(
      'Share of the 24 h checkpoint windows closed in the last 30 days that held a global reset; null below the minimum sample.',
    ),
    trailing_base_rate_30d_48h: shareOrNull,
    trailing_base_rate_90d_24h: shareOrNull.describe(
      'The same over 90 days: the baseline the forecast is compared with (see compared_with and /api/accuracy).',
    ),
    trailing_base_rate_90d_48h: shareOrNull,
    compared_with: z
      .literal('trailing_base_rate_90d')
      .describe('The base rate the forecast is compared with in the backtest and in /api/accuracy.'),
    observed_until: instantOrNull.describe(
      'End of the time the reset sources were observed; a gap of over 6 h before now withholds the probabilities (explanation coverage_gap).',
    ),
    sample_size: count,
    model_version: str.describe(
      'The shipped model: poisson-v1 (the global resets of the trailing 90 days as a constant rate), chosen by the rolling-origin backtest (npm run backtest).',
    ),
    explanation: str.describe(
      'Translated: the probabilities and what they rest on, or why there are none (too little history, a gap in observation, or, in the expired forecast, since when it has expired and why).',
    ),
    issued_at: instant.describe('When the forecast was computed (meta.generated_at); the expired forecast keeps it.'),
    last_global_reset_at: instantOrDateOrNull,
    announced: z
      .strictObject({
        id: str,
        scheduled_for: instantOrNull.describe(
          'When the announcement says the reset lands; null when it names no time (then no probability changes).',
        ),
        announced_at: instant,
        inside_24h: bool.describe(
          'The scheduled time is inside the next 24 h (or up to 6 h overdue): probability_24h reflects the announcement.',
        ),
        inside_48h: bool,
        follow_through: share.describe(
          'Estimated chance an announced reset lands: (followed + 1) / (sample_size + 2).',
        ),
        followed: count.describe('Earlier announcements in the records that were followed by the reset.'),
        sample_size: count.describe('Earlier announcements in the records.'),
      })
      .nullable()
      .describe('An announced, not yet applied, global reset the forecast read; null when none is pending.'),
    tracker_watch: z
      .strictObject({
        level: str.describe("The tracker's own level (elevated, strong, or another word it uses)."),
        reset_chance_percent: TrackerWatchSchema.shape.reset_chance_percent.describe(
          "The tracker's own chance in percent; null when it gives none. Not this API's probability.",
        ),
        forecast_window: str.describe("The tracker's window, verbatim (display text, never translated)."),
        observed_at: instant,
        expires_at: instantOrNull,
        text: str.describe("The tracker's words, never translated."),
        source_url: strOrNull.describe('null: the tracker gave no link.'),
        note: str.describe(
          'Translated: whose watch this is, and that it does not change probability_24h or probability_48h.',
        ),
      })
      .nullable()
      .describe(
        "The upstream tracker's own watch while it lasts (codex-resets.com `active_watch`); null when none. It is not this API's forecast and does not change it.",
      ),
  },
  `The chance of a global reset in the next 24 and 48 hours. It holds until meta.stale_after (${FORECAST_HOLDS}); from then on the CDN serves the expired forecast instead: probabilities, base rates, \`announced\` and \`tracker_watch\` null (each reads as the next 24 or 48 hours), the facts about the past kept (meta, issued_at, sample_size, observed_until, last_global_reset_at), and \`explanation\` saying since when it has expired (meta.stale_after) and why. A client treats a forecast past meta.stale_after by its own clock the same way.`,
);

export const SourceCheckDocSchema = z.strictObject({
  source: str,
  kind: z.enum(SOURCE_KINDS),
  url: str.describe(
    'Scheme and host of the source only (`https://host/…`): the rest of a configured URL may be a secret.',
  ),
  ok: bool,
  http_status: z.number().int().nullable(),
  latency_ms: z.number().nullable(),
  items_read: z.number().int(),
  checked_at: instant,
  detail_code: str,
  detail: str,
  affects_today: bool.describe("Whether this source can report a reset and so keeps today's state fresh."),
});

const UpstreamComponentSchema = z.strictObject({
  id: str,
  name: str,
  status: str.describe(
    "The page's own word, never translated (`operational`, `degraded_performance`, `partial_outage`, `major_outage`, incident.io's `full_outage`, ...); `unknown` when it is not a plain lower_snake_case word.",
  ),
});

export const UpstreamStatusDocSchema = z.strictObject({
  page_url: str,
  indicator: str,
  description: str.describe("The upstream service's own words, never translated."),
  page_updated_at: strOrNull.describe(
    "The status page's own `page.updated_at`, as the page writes it: it moves only when the page's incidents change (it can be months old on a current page), so it says nothing about freshness and is never used for staleness. When we read the page is `fetched_at`. null when the page gives none or it fails the date rules.",
  ),
  updated_at: deprecatedAlias(strOrNull, "page_updated_at, the same value (the page's own time, never our freshness)"),
  fetched_at: instant.describe('When this build read the status page.'),
  components: z
    .array(UpstreamComponentSchema)
    .describe(
      'The Codex components: those whose id is in the configured list (by default the Codex group of status.openai.com: Codex Web, Codex API, CLI, VS Code extension, Codex in ChatGPT Desktop), or, when none of those ids is on the page, those whose name mentions Codex.',
    ),
});

export const StatusDocSchema = named('Status', {
  meta: MetaSchema,
  reset: bool.nullable(),
  ...todayFields,
  recent_events: z.array(EventDocSchema),
  source_checks: z.array(SourceCheckDocSchema),
  upstream_status: UpstreamStatusDocSchema.nullable(),
  upcoming,
});

export const SignalDocSchema = z.strictObject({
  id: str,
  kind: z.enum(SIGNAL_KINDS),
  source: str,
  title: str,
  excerpt: str,
  url: strOrNull,
  published_at: instantOrNull,
  first_seen_at: instant,
  review: z.enum(['awaiting_review', 'dismissed', 'promoted']),
  promoted_to: strOrNull,
  count: count
    .optional()
    .describe('kind source_anomaly only: how many new global resets the quarantined run of this source brought.'),
  origin: str.optional().describe("kind source_anomaly only: the source's scheme and host (nothing more of its URL)."),
  expires_at: instantOrNull
    .optional()
    .describe("kind tracker_watch only: when the tracker's watch expires (null: it named no end)."),
  curated_type: eventType
    .optional()
    .describe(
      'kind type_disagreement only: the type curated history (ledger, curated, verified records) gives the post; the published event has this type.',
    ),
  tracker_type: eventType
    .optional()
    .describe('kind type_disagreement only: the type the upstream tracker gives the post.'),
  event_ids: strings
    .optional()
    .describe('kinds type_disagreement, same_day_resets and tracker_missing: the events and records concerned.'),
  labels: z
    .array(z.strictObject({ origin: z.enum(ORIGINS), label: str, reads_as: str }))
    .optional()
    .describe(
      'kinds type_disagreement and tracker_missing: what each source calls the post, in its own words (never translated), and how this API reads that word. A type_disagreement waits until a review decision on the post (data/tracker-review.json) settles it; a tracker_missing is a global reset one healthy tracker has not listed 6 hours after it.',
    ),
});

export const SignalsDocSchema = named('Signals', {
  meta: MetaSchema,
  note: str,
  count,
  signals: z.array(SignalDocSchema),
});

/** A score, or null when none could be computed. */
const score = z.number().nullable();

const HorizonSummarySchema = z.strictObject({
  brier: score.describe('Mean Brier score of the resolved checkpoints (corrected outcomes where a correction exists).'),
  climatology_brier: score.describe('Mean Brier score of the all-history base rate known at issue time.'),
  trailing_climatology_brier: score.describe('Mean Brier score of the trailing 30-day base rate known at issue time.'),
  trailing_sample_size: count,
  sample_size: count,
  late: count.describe('Checkpoints whose live forecast was more than an hour old (runs were dropped).'),
  pending: count.describe('Checkpoints whose window has not been resolved yet.'),
  corrections: count,
});

const SkillEntrySchema = z.strictObject({
  skill: score.describe(
    '1 - Brier / baseline Brier over the resolved as-issued checkpoints; null with reason when n is too small.',
  ),
  lower: score.describe('95% moving-block bootstrap interval (blocks of 28 checkpoints, 2000 resamples, seed 16).'),
  upper: score,
  n: count,
  reason: strOrNull,
});

/** The api_version 1 shape of a value per horizon (`h24`, `h48`). */
const byHorizon = <T extends z.ZodType>(schema: T) => z.strictObject({ h24: schema, h48: schema });

const ReliabilityBinSchema = z.strictObject({
  lower: z.number(),
  upper: z.number(),
  count,
  mean_probability: z.number().nullable(),
  observed_frequency: z.number().nullable(),
});

export const AccuracyDocSchema = named('Accuracy', {
  meta: MetaSchema,
  note: str,
  window_days: positive,
  counts: z
    .strictObject({
      resolved_24h: count,
      resolved_48h: count,
      pending_24h: count.describe('Window closed or open, not yet observed by the reset sources; resolves once it is.'),
      pending_48h: count,
      unresolvable_24h: count.describe('Window never observed within 7 days of closing: excluded from every score.'),
      unresolvable_48h: count,
      missed: count.describe('Checkpoints with no forecast at most 6 h old.'),
    })
    .describe('Checkpoint counts in the window, per horizon.'),
  skill: z
    .strictObject({
      all_history_24h: SkillEntrySchema,
      all_history_48h: SkillEntrySchema,
      trailing_30d_24h: SkillEntrySchema,
      trailing_30d_48h: SkillEntrySchema,
      trailing_90d_24h: SkillEntrySchema,
      trailing_90d_48h: SkillEntrySchema,
    })
    .describe(
      'Skill against the all-history and the trailing 30- and 90-day base rates logged with each forecast. A forecast whose model is itself one of these base rates (scoring.model_baseline) is left out of that comparison.',
    ),
  scoring: z
    .strictObject({
      rules: str,
      late_after_minutes: z.number(),
      resolve_after_hours: z.number(),
      trailing_climatology_days: z.number(),
      model_version: strOrNull.describe(
        'The model of the newest scored forecast in the window; null when none is scored.',
      ),
      model_baseline: z
        .enum(['all_history', 'trailing_30d', 'trailing_90d'])
        .nullable()
        .describe(
          'The skill baseline that model is itself (a trailing base rate shipped as the forecast), whose comparison would be 0 by construction; null when the model is none of them.',
        ),
    })
    .describe('How checkpoints are scored (ResetBench rules) and the thresholds used.'),
  summary_24h: HorizonSummarySchema.describe('Scores of the 24-hour forecast.'),
  summary_48h: HorizonSummarySchema.describe('Scores of the 48-hour forecast.'),
  reliability_24h: z
    .array(ReliabilityBinSchema)
    .describe('Resolved 24-hour checkpoints binned by forecast probability, against how often a reset followed.'),
  reliability_48h: z.array(ReliabilityBinSchema).describe('As reliability_24h, for the 48-hour forecast.'),
  // The names before the one horizon rule (`probability_24h` style); kept for api_version 1 only.
  summary: deprecatedAlias(byHorizon(HorizonSummarySchema), 'summary_24h and summary_48h (h24, h48), the same values'),
  reliability: deprecatedAlias(
    byHorizon(z.array(ReliabilityBinSchema)),
    'reliability_24h and reliability_48h (h24, h48), the same values',
  ),
  forecasts: z.array(
    z.strictObject({
      checkpoint: instant.describe('00/06/12/18 UTC; the window scored is (checkpoint, checkpoint + horizon].'),
      horizon_hours: z.union([z.literal(24), z.literal(48)]),
      issued_at: instant.describe(
        'When the scored forecast was published: the last one at or before the checkpoint, at most 6 h old.',
      ),
      age_minutes: count,
      late: bool,
      model_version: str,
      probability: share,
      outcome: bool.describe('As first resolved; never edited.'),
      resolved_at: instant.describe('When the outcome was recorded, once, after the window closed.'),
      event_ids: strings.describe('The global resets that decided the outcome.'),
      brier: share,
      correction: z
        .strictObject({ outcome: bool, corrected_at: instant, event_ids: strings, brier: share })
        .nullable()
        .describe('A later, visible correction of the outcome (records changed); the summary uses it.'),
    }),
  ),
  missed: z
    .array(z.strictObject({ checkpoint: instant }))
    .describe('Checkpoints with no forecast at most 6 h old: published, never scored.'),
});

export const ErrorDocSchema = named('Error', {
  error: z.strictObject({
    status: z.number().int(),
    code: z.enum(ERROR_CODES),
    message: str,
    messages: z.record(str, str).optional(),
    valid_values: strings.optional(),
  }),
  meta: z.strictObject({ lang: z.enum(LANGS).nullable() }),
});

export const IndexDocSchema = named('Index', {
  meta: IndexMetaSchema,
  api_version: z.literal(API_VERSION),
  languages: z.array(z.enum(LANGS)),
  default_language: z.enum(LANGS),
  types: z.array(eventType),
  endpoints: z.array(z.strictObject({ path: str, description: str })),
  openapi: str,
  license_url: str,
  schemas: strings,
  license: str,
});

/** Every document schema by the name its JSON Schema is published under (api/schemas/<name>.json). */
export const DOCUMENT_SCHEMAS = {
  latest: LatestDocSchema,
  history: HistoryDocSchema,
  'history-page': HistoryPageDocSchema,
  event: EventResponseSchema,
  forecast: ForecastDocSchema,
  status: StatusDocSchema,
  signals: SignalsDocSchema,
  accuracy: AccuracyDocSchema,
  error: ErrorDocSchema,
  index: IndexDocSchema,
} as const;
export type DocumentSchemaName = keyof typeof DOCUMENT_SCHEMAS;
