// The internal records every stage shares. Inbound payloads are parsed into these before the model sees them.
import { z } from 'zod';
import { EVENT_ID_PATTERN, EVENT_TYPES, LANGS } from '../contract.ts';
import { checkpointAtOrAfter, toIso } from './climatology.ts';

export const LangSchema = z.enum(LANGS);
export const EventTypeSchema = z.enum(EVENT_TYPES);

/** Why a reset was granted, as the ledger classifies it; drives the title/summary templates. */
export const REASONS = ['incident', 'launch', 'milestone', 'celebration', 'banked', 'policy', 'other'] as const;
export const ReasonSchema = z.enum(REASONS);
export type Reason = z.infer<typeof ReasonSchema>;

export const EventIdSchema = z
  .string()
  .regex(EVENT_ID_PATTERN, 'ids are 1-80 chars of a-z 0-9 . _ - starting with a letter or digit');

/** Text with an English original and optional hand-written translations; a missing language falls back to `en`. */
export const LocalizedSchema = z.strictObject({
  en: z.string().min(1),
  de: z.string().min(1).optional(),
  ko: z.string().min(1).optional(),
  ja: z.string().min(1).optional(),
  zh: z.string().min(1).optional(),
});
export type Localized = z.infer<typeof LocalizedSchema>;

const isoInstant = z.iso.datetime({ offset: false });
const instantOrDate = z.union([isoInstant, z.iso.date()]).nullable();
/** An X post id. */
const postId = z.string().regex(/^\d{1,20}$/);

export const TIME_BASES = ['announcement', 'observation', 'effective'] as const;
export const TIME_PRECISIONS = ['day', 'minute', 'second'] as const;
/** `service_resets`: codex-resets.com's API; `reset_timeline`: codex-reset.com's timeline (a second tracker). */
export const ORIGINS = ['ledger', 'service_resets', 'reset_timeline', 'curated'] as const;
type Origin = (typeof ORIGINS)[number];
/** The origins that are third-party trackers read by the build (not curated history). */
export const TRACKER_ORIGINS = ['service_resets', 'reset_timeline'] as const satisfies readonly Origin[];

export const EvidenceSourceSchema = z.strictObject({
  platform: z.string().min(1).max(40),
  url: z.url(),
  author: z.string().max(80).optional(),
});

/** Plans a post can name; `all` (everyone, every plan) and `all_paid` (every paid plan) as the post says them. */
export const PLANS = ['free', 'go', 'plus', 'pro', 'business', 'enterprise', 'edu', 'all', 'all_paid'] as const;
export const PRODUCTS = ['codex', 'chatgpt_work'] as const;
/** What a reset resets or credits: the 5-hour window, the weekly window, a banked reset. */
export const LIMITS = ['five_hour', 'weekly', 'banked_reset'] as const;

const postWords = z.string().min(1).max(500).nullable();
const stated = <T extends z.ZodType>(value: T) => z.strictObject({ value: value.nullable(), quote: postWords });

/** Whom a reset reached and when it lands, as the post states it, with the words it was read from (model/reach.ts). */
export const ReachSchema = z.strictObject({
  reviewed: z.boolean(),
  plans: stated(z.array(z.enum(PLANS))),
  products: stated(z.array(z.enum(PRODUCTS))),
  models: stated(z.array(z.string().min(1).max(60))),
  cohort: stated(z.number().int().positive()),
  limits: stated(z.array(z.enum(LIMITS))),
  landing: z.strictObject({
    from: isoInstant.nullable(),
    until: isoInstant.nullable(),
    as_written: postWords,
    quote: postWords,
  }),
});
export type Reach = z.infer<typeof ReachSchema>;

/** What one source calls an event: its record, its own word for it, and how that word reads (model/agreement.ts). */
export const RecordedBySchema = z.strictObject({
  origin: z.enum(ORIGINS),
  record_id: z.string().min(1).max(120),
  /** The source's own label, never translated (the ledger's type, `regular`/`banked`, `reset/hard/live`, `boost`). */
  label: z.string().min(1).max(120),
  reads_as: z.enum(['global_reset', 'banked_grant', 'policy_change', 'announcement', 'not_a_reset', 'unconfirmed']),
});
export type RecordedBy = z.infer<typeof RecordedBySchema>;
/** Whether the sources agree on an event's type (described in render/schemas.ts, EventDocSchema.agreement). */
export const AGREEMENTS = ['agreed', 'single_source', 'disputed', 'reviewed'] as const;
export type Agreement = (typeof AGREEMENTS)[number];

/** Why the service did not verify a global reset itself (model/verify.ts; described in render/schemas.ts). */
export const UNVERIFIED_REASONS = [
  'single_source',
  'disputed',
  'sources_disagreed',
  'no_post',
  'not_read',
  'verification_off',
  'post_not_found',
  'post_unreadable',
  'author_not_official',
  'text_differs',
  'date_differs',
] as const;
export const VerificationSchema = z.strictObject({
  state: z.enum(['verified', 'not_verified']),
  /** null when verified. */
  reason: z.enum(UNVERIFIED_REASONS).nullable(),
  /** The official post checked (the event's primary evidence), and what X said of it. */
  post_id: postId.nullable(),
  author: z.string().max(40).nullable(),
  read_at: isoInstant.nullable(),
  /** The sources that call it a global reset (`agreed`), and those whose quote of the post was compared. */
  sources: z.array(z.enum(ORIGINS)).max(10),
  quoted_by: z.array(z.enum(ORIGINS)).max(10),
});
export type Verification = z.infer<typeof VerificationSchema>;

/** The field each `time_basis` names. */
const BASIS_FIELDS = { announcement: 'announced_at', observation: 'observed_at', effective: 'effective_at' } as const;

/** One reset-related event; `time_basis` names which instant `occurred_at` is (plain dates at `time_precision: day`). */
export const EventSchema = z
  .strictObject({
    id: EventIdSchema,
    type: EventTypeSchema,
    status: z.enum(['archived', 'verified']),
    reason: ReasonSchema,
    origin: z.enum(ORIGINS),
    time_precision: z.enum(TIME_PRECISIONS),
    time_basis: z.enum(TIME_BASES),
    announced_at: instantOrDate,
    observed_at: instantOrDate,
    effective_at: instantOrDate,
    /** Hand-written text; absent fields are rendered from templates keyed by type and reason. */
    title: LocalizedSchema.optional(),
    summary: LocalizedSchema.optional(),
    scope: LocalizedSchema.optional(),
    author_notes: LocalizedSchema.optional(),
    verification_notes: LocalizedSchema.optional(),
    /** The original announcement, never translated or edited; empty only on a tracker record (its API allows it). */
    evidence_text: z.string().max(4000),
    sources: z.array(EvidenceSourceSchema).default([]),
    /** Ids of other records describing the same event (e.g. the ledger row a verified record replaces). */
    same_as: z.array(EventIdSchema).default([]),
    /** Attached by the model from data/reach-review.json (model/reach.ts); never read from a source. */
    reach: ReachSchema.optional(),
    /** Attached by the model (model/agreement.ts): every source's record of this event, and whether they agree. */
    recorded_by: z.array(RecordedBySchema).max(20).optional(),
    agreement: z.enum(AGREEMENTS).optional(),
    /** Attached by the model (model/verify.ts): what the service checked itself, or why it could not verify. */
    verification: VerificationSchema.optional(),
  })
  .superRefine((e, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    const times = Object.values(BASIS_FIELDS);
    if (times.every((f) => e[f] === null))
      issue('announced_at', 'at least one of announced_at, observed_at, effective_at is required');
    const basisField = BASIS_FIELDS[e.time_basis];
    if (e[basisField] === null) issue(basisField, `time_basis is ${e.time_basis} but ${basisField} is null`);
    const day = e.time_precision === 'day';
    const precisionIssue = day
      ? 'time_precision day wants YYYY-MM-DD'
      : 'a full ISO 8601 UTC instant is required unless time_precision is day';
    for (const f of times) {
      const v = e[f];
      if (v !== null && day !== /^\d{4}-\d{2}-\d{2}$/.test(v)) issue(f, precisionIssue);
    }
    if (!(TRACKER_ORIGINS as readonly string[]).includes(e.origin) && e.evidence_text.trim() === '')
      issue('evidence_text', 'curated history quotes its evidence: evidence_text is required');
    if (e.status !== 'verified') return;
    // Verified by the service itself (model/verify.ts): its notes are rendered from what it checked.
    const byService = e.verification?.state === 'verified';
    if (!e.verification_notes && !byService) issue('verification_notes', 'a verified record needs verification_notes');
    if (!e.author_notes && !byService) issue('author_notes', 'a verified record needs author_notes');
    if (e.sources.length === 0) issue('sources', 'a verified record needs at least one evidence source');
  });
export type Event = z.infer<typeof EventSchema>;
export type EventInput = z.input<typeof EventSchema>;

export const SOURCE_KINDS = [
  'status_page',
  'reset_tracker',
  'signal_feed',
  'tracker_status',
  'status_incidents',
  'reset_timeline',
  'post_embed',
] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** A translatable detail: a locale key (namespace `checks`, `forecast` or `common`) plus its interpolation values. */
export const DetailSchema = z.object({
  code: z.string().min(1),
  params: z.record(z.string(), z.union([z.string(), z.number()])).default({}),
});
export type Detail = z.infer<typeof DetailSchema>;

export const SourceCheckSchema = z.object({
  source: z.string().min(1),
  kind: z.enum(SOURCE_KINDS),
  url: z.string(),
  ok: z.boolean(),
  http_status: z.number().int().nullable(),
  latency_ms: z.number().nonnegative().nullable(),
  items_read: z.number().int().nonnegative(),
  checked_at: isoInstant,
  detail: DetailSchema,
});
export type SourceCheck = z.infer<typeof SourceCheckSchema>;

export const ComponentStatusSchema = z.string().min(1).max(60);
export const UpstreamStatusSchema = z.object({
  page_url: z.string(),
  indicator: z.string(),
  /** The upstream service's own words, never translated. */
  description: z.string(),
  /** The page's own `page.updated_at`: it moves only with the page's incidents, never a measure of our freshness. */
  updated_at: z.string().nullable(),
  components: z.array(z.object({ id: z.string(), name: z.string(), status: ComponentStatusSchema })),
  fetched_at: isoInstant,
});
export type UpstreamStatus = z.infer<typeof UpstreamStatusSchema>;

/** Besides feed items and status incidents, the kinds model/announcement.ts, apply.ts and reconcile.ts raise. */
export const SIGNAL_KINDS = [
  'feed_item',
  'status_incident',
  'overdue_announcement',
  'source_anomaly',
  'tracker_watch',
  'type_disagreement',
  'same_day_resets',
  'tracker_missing',
] as const;
/** Upstream text cut to `max` characters (an ellipsis marks the cut), as a signal's fields allow. */
export const capText = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export const SignalSchema = z.object({
  id: z.string().min(1).max(120),
  kind: z.enum(SIGNAL_KINDS),
  source: z.string().min(1),
  /** Untrusted upstream text, length-capped, never translated. */
  title: z.string().max(300),
  excerpt: z.string().max(1000),
  url: z.string().nullable(),
  published_at: isoInstant.nullable(),
  first_seen_at: isoInstant,
  review: z.enum(['awaiting_review', 'dismissed', 'promoted']),
  promoted_to: EventIdSchema.nullable(),
  /** source_anomaly only: the new global resets the quarantined run brought, and the source's scheme and host. */
  count: z.number().int().nonnegative().optional(),
  origin: z.string().max(300).optional(),
  /** tracker_watch only: when the tracker's watch expires (null: it named no end). */
  expires_at: isoInstant.nullable().optional(),
  /** type_disagreement only: the type curated history gives the post, and the type the tracker gives it. */
  curated_type: EventTypeSchema.optional(),
  tracker_type: EventTypeSchema.optional(),
  /** type_disagreement and same_day_resets: the events concerned (curated first). */
  event_ids: z.array(EventIdSchema).max(10).optional(),
  /** type_disagreement and tracker_missing: what each source calls the post, in its own words. */
  labels: z
    .array(z.strictObject({ origin: z.enum(ORIGINS), label: z.string().max(120), reads_as: z.string().max(40) }))
    .max(10)
    .optional(),
});
export type Signal = z.infer<typeof SignalSchema>;
/** How every new signal starts: awaiting review, promoted to nothing yet. */
export const AWAITING_REVIEW = { review: 'awaiting_review', promoted_to: null } as const;

const probability01 = z.number().min(0).max(1);

/** A forecast as it was published by one run: never edited afterwards. */
export const IssuedForecastSchema = z.object({
  issued_at: isoInstant,
  model_version: z.string(),
  /** Null when the run published no probability (too little data). */
  probability_24h: probability01.nullable(),
  probability_48h: probability01.nullable(),
  /** All-history, trailing 30-day and 90-day climatology known at issue time (the trailing ones null in older entries). */
  base_rate_24h: probability01.nullable(),
  base_rate_48h: probability01.nullable(),
  trailing_base_rate_24h: probability01.nullable().default(null),
  trailing_base_rate_48h: probability01.nullable().default(null),
  trailing_90d_base_rate_24h: probability01.nullable().default(null),
  trailing_90d_base_rate_48h: probability01.nullable().default(null),
  sample_size: z.number().int().nonnegative(),
});
export type IssuedForecast = z.infer<typeof IssuedForecastSchema>;

/** One checkpoint of the append-only forecast log: the forecast live at it, as issued, or `missed`. */
export const ForecastLogEntrySchema = z.preprocess(
  migrateLogEntry,
  z.object({
    checkpoint: isoInstant,
    status: z.enum(['issued', 'missed']),
    logged_at: isoInstant,
    forecast: IssuedForecastSchema.nullable(),
    /** Set on entries converted from the older log format (one forecast logged per slot, after its start). */
    migrated: z.boolean().optional(),
  }),
);
export type ForecastLogEntry = z.infer<typeof ForecastLogEntrySchema>;

/** An old entry (`checkpoint` = its slot start) is one of the next checkpoint: none is scored issued after it. */
function migrateLogEntry(raw: unknown): unknown {
  const old = raw as Record<string, unknown>;
  if (typeof raw !== 'object' || raw === null || 'status' in old || !('probability_24h' in old)) return raw;
  const issuedMs = Date.parse(String(old.issued_at));
  if (!Number.isFinite(issuedMs)) return raw;
  const { checkpoint: _slotStart, ...forecast } = old;
  return {
    checkpoint: toIso(checkpointAtOrAfter(issuedMs)),
    status: 'issued',
    logged_at: old.issued_at,
    forecast,
    migrated: true,
  };
}

/** How a checkpoint's window turned out (`resolution`, once); a later flip appends a `correction`, never an edit. */
export const ForecastResolutionSchema = z.object({
  checkpoint: isoInstant,
  horizon_hours: z.union([z.literal(24), z.literal(48)]),
  kind: z.enum(['resolution', 'correction']),
  outcome: z.boolean(),
  resolved_at: isoInstant,
  /** The global resets that fell in (checkpoint, checkpoint + h]; empty for a no. */
  event_ids: z.array(z.string()).default([]),
});
export type ForecastResolution = z.infer<typeof ForecastResolutionSchema>;
/** A reset the tracker announced but has not applied (its `/api/v1/status` `data.scheduled_reset`). */
export const AnnouncementSchema = z.object({
  id: EventIdSchema,
  upstream_id: z.string().min(1).max(120),
  type: EventTypeSchema.nullable(),
  announced_at: isoInstant,
  scheduled_for: isoInstant.nullable(),
  /** The announcement's own words, never translated; empty when the tracker gave none (its API allows that). */
  text: z.string().max(4000),
  /** null: an observed announcement without a link (the tracker's API allows that). */
  source: EvidenceSourceSchema.nullable(),
  first_seen_at: isoInstant,
  /** Which tracker announced it: codex-reset.com's announced window, or (absent) codex-resets.com's scheduled reset. */
  origin: z.enum(TRACKER_ORIGINS).optional(),
});
export type Announcement = z.infer<typeof AnnouncementSchema>;

/** The tracker's own public watch (`active_watch` of its `/api/v1/status`), shown as its, never our probability. */
export const TrackerWatchSchema = z.object({
  level: z.string().min(1).max(40),
  /** The tracker's own chance in percent, or null when it gives none. */
  reset_chance_percent: z.number().min(0).max(100).nullable(),
  /** The tracker's window and words, verbatim, never translated. */
  forecast_window: z.string().max(300),
  observed_at: isoInstant,
  expires_at: isoInstant.nullable(),
  text: z.string().max(1000),
  /** null: the tracker gave no link (an observed watch). */
  source_url: z.url().nullable(),
  first_seen_at: isoInstant,
});
export type TrackerWatch = z.infer<typeof TrackerWatchSchema>;
/** Watches kept in state for a later backtest (a few a month are raised); the oldest go first. */
export const MAX_WATCHES = 1_000;

/** What a tracker calls each of its records, a reset to us or not (a `boost`, a reply), to compare the trackers. */
export const LABEL_READINGS = ['global_reset', 'banked_grant', 'announcement', 'not_a_reset', 'unconfirmed'] as const;
export const SourceLabelSchema = z.object({
  /** The source's config id (`reset-timeline`, `reset-tracker`). */
  source: z.string().min(1).max(40),
  /** The upstream record id, cleaned. */
  record_id: z.string().min(1).max(120),
  /** The X post the record cites (digits), null when it cites none. */
  post_id: postId.nullable(),
  /** The record's own time: announced, or observed for an observation. */
  at: isoInstant,
  /** The source's own words, never translated, and how the adapter reads them. */
  label: z.string().min(1).max(120),
  reads_as: z.enum(LABEL_READINGS),
  /** The post's words as the source quotes them (empty: it quotes none); compared with the post itself. */
  quote: z.string().max(4000).default(''),
});
export type SourceLabel = z.infer<typeof SourceLabelSchema>;
/** Labels kept in state: a few hundred records a tracker; a runaway source stops here (newest kept). */
export const MAX_SOURCE_LABELS = 4_000;

/** How one read of an X post through the oEmbed endpoint ended. */
export const POST_READ_OUTCOMES = ['ok', 'not_found', 'rate_limited', 'blocked', 'failed'] as const;
/**
 * The service's own read of an official post (X's oEmbed), remembered so a post is read once: an `ok` or `not_found`
 * read is final; the others are tried again from `next_try_at` (bounded back-off).
 */
export const PostReadSchema = z.object({
  post_id: postId,
  outcome: z.enum(POST_READ_OUTCOMES),
  read_at: isoInstant,
  /** Reads that did not end in `ok`/`not_found`, in a row (0 after a final answer). */
  attempts: z.number().int().nonnegative(),
  next_try_at: isoInstant.nullable(),
  /** From `author_url`: the account's handle, lower-cased; null unless `ok`. */
  author: z.string().max(40).nullable(),
  /** The post's text as X returns it in `html`'s paragraph, markup removed and cleaned; empty unless `ok`. */
  text: z.string().max(4000),
  /** HTTP status of the last read (null: no answer). */
  http_status: z.number().int().nullable(),
});
export type PostRead = z.infer<typeof PostReadSchema>;
/** Post reads kept in state (one per global reset with a post: a few hundred a year). */
export const MAX_POST_READS = 2_000;

/** A channel (a hash, never the secret URL) and a message key. */
const delivery = z.object({ channel: z.string().min(1).max(80), key: z.string().min(1).max(200) });
export const NotifyLogSchema = z.object({
  sent: z.array(delivery.extend({ at: isoInstant })).default([]),
  /** Deliveries that failed and are retried until `first_failed_at` + NOTIFY_RETRY_MS. */
  failed: z
    .array(
      delivery.extend({
        first_failed_at: isoInstant,
        attempts: z.number().int().positive(),
        /** A digest's covered keys, so its retry is the same digest (notify/plan.ts). */
        covers: z.array(z.string().min(1).max(200)).optional(),
      }),
    )
    .default([]),
});
export type NotifyLog = z.infer<typeof NotifyLogSchema>;

/** What must outlive a run. Every field has a default so an old or partial file still loads. */
export const StateSchema = z.object({
  schema_version: z.literal(1).default(1),
  updated_at: isoInstant.nullable().default(null),
  /** Recent checks, newest last, capped per source. */
  checks: z.array(SourceCheckSchema).default([]),
  /** Last good data per source: a failed check never replaces it. */
  upstream_events: z.array(EventSchema).default([]),
  upstream_status: UpstreamStatusSchema.nullable().default(null),
  signals: z.array(SignalSchema).default([]),
  forecast_log: z.array(ForecastLogEntrySchema).default([]),
  forecast_resolutions: z.array(ForecastResolutionSchema).default([]),
  /** The forecast the previous run published: the one live at a checkpoint that falls before the next run. */
  last_forecast: IssuedForecastSchema.nullable().default(null),
  /** The tracker's last good announced reset (`null`: none announced); see model/announcement.ts. */
  announcement: AnnouncementSchema.nullable().default(null),
  /** The tracker's current watch (null: none raised) and every watch seen, kept so a later backtest can score them. */
  tracker_watch: TrackerWatchSchema.nullable().default(null),
  watches: z.array(TrackerWatchSchema).max(MAX_WATCHES).default([]),
  /** Stretches of time the reset sources were observed (good checks at most 2 h apart; model/coverage.ts). */
  reset_coverage: z
    .array(z.object({ from: isoInstant, to: isoInstant }))
    .max(5000)
    .default([]),
  /** What each notification channel was sent, recorded after success (notify/plan.ts). */
  notifications: NotifyLogSchema.default({ sent: [], failed: [] }),
  /** Every tracker's label for each of its records, last good read of each source (model/agreement.ts). */
  source_labels: z.array(SourceLabelSchema).max(MAX_SOURCE_LABELS).default([]),
  /** The service's reads of official posts, by post id (model/verify.ts). */
  post_reads: z.array(PostReadSchema).max(MAX_POST_READS).default([]),
});
export type State = z.infer<typeof StateSchema>;
export const emptyState = (): State => StateSchema.parse({});
