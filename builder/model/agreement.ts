// Pure: what every source says of each event, whether they agree, and the questions their disagreements leave for a
// reviewer. Two sources that agree are evidence; one source is a record. Sources: curated history (the imported ledger,
// data/verified/), codex-resets.com (origin service_resets) and codex-reset.com (origin reset_timeline). Each tracker
// mislabels some posts, differently from the other, so their disagreement is found post by post, never decided here.
import { EVENT_TYPES, formatInstant, type EventType } from '../contract.ts';
import { citedPost, citedPosts } from './evidence.ts';
import { eventMs, firstPerKey, reviewedBy } from './events.ts';
import { countsAsGlobal } from './reach.ts';
import { question as openQuestion, type TrackerReview } from './reconcile.ts';
import {
  TRACKER_ORIGINS,
  capText,
  type Agreement,
  type Event,
  type RecordedBy,
  type Signal,
  type SourceCheck,
  type SourceLabel,
} from './schemas.ts';

type Origin = Event['origin'];

/** How each origin is named in titles and explanations: the name its data is published under. */
export const ORIGIN_NAMES: Readonly<Record<Origin, string>> = {
  curated: 'reviewed archive',
  ledger: 'codex-reset-ledger',
  service_resets: 'codex-resets.com',
  reset_timeline: 'codex-reset.com',
};

/**
 * A healthy tracker should list a reset within this long; past it, one that the other source has and it lacks is a
 * question for a reviewer. Trackers list official posts within minutes; six hours covers a night without an operator.
 */
export const MISSING_AFTER_MS = 6 * 60 * 60 * 1000;

/** Records of one post counted at most (a post has a handful): a source listing one post thousands of times stays linear. */
const MAX_VOTES_PER_POST = 40;

/** Each tracker's last good check and the oldest record it lists, for the "one tracker lacks a reset" question. */
export type TrackerHealth = ReturnType<typeof trackerHealth>[number];

export function trackerHealth(
  checks: readonly SourceCheck[],
  records: readonly Event[],
  labels: readonly SourceLabel[],
) {
  const kinds = { service_resets: 'reset_tracker', reset_timeline: 'reset_timeline' } as const;
  return TRACKER_ORIGINS.map((origin) => {
    const good = checks.filter((c) => c.ok && c.kind === kinds[origin]).map((c) => c.checked_at);
    const times = [
      ...records.filter((r) => r.origin === origin).map(eventMs),
      ...(origin === 'reset_timeline' ? labels.map((l) => Date.parse(l.at)) : []),
    ];
    return {
      origin,
      last_good_check_at: good.sort().at(-1) ?? null,
      covers_from: times.length === 0 ? null : formatInstant(times.reduce((a, b) => Math.min(a, b))),
    };
  });
}

/** The codex-resets.com reset types as the service writes them (sources/reset-tracker.ts maps them to ours). */
const TRACKER_LABELS: Readonly<Record<string, string>> = { global_reset: 'regular', banked_grant: 'banked' };

/** One record's vote: its origin, id, own word and our reading. Curated records speak with their (reviewed) type. */
function voteOf(e: Event): RecordedBy {
  const labels: Record<Origin, string> = {
    service_resets: TRACKER_LABELS[e.type] ?? e.type,
    ledger: e.reason,
    curated: 'verified',
    reset_timeline: e.type,
  };
  return { origin: e.origin, record_id: e.id, label: labels[e.origin], reads_as: e.type };
}

/** A reading that takes a side: `unconfirmed` and `announcement` say neither yes nor no about a reset. */
const takesSide = (v: RecordedBy): boolean => v.reads_as !== 'unconfirmed' && v.reads_as !== 'announcement';

/** Whether `votes` include curated history (the ledger or a maintainer's verified record). */
export const hasCurated = (votes: readonly RecordedBy[] | undefined): boolean =>
  (votes ?? []).some((v) => v.origin === 'ledger' || v.origin === 'curated');

/**
 * The forecast's and accuracy's ground truth: a global reset (reach.ts), except one the sources dispute that curated
 * history does not hold (where curated history has a type, it stands).
 */
export const countsForForecast = (e: Event): boolean =>
  countsAsGlobal(e) && !(e.agreement === 'disputed' && !hasCurated(e.recorded_by));

/** "codex-resets.com: regular; codex-reset.com: credits/banked/archive", the sources' own words, in a fixed order. */
export const describeVotes = (votes: readonly RecordedBy[]): string =>
  [...new Set(votes.filter(takesSide).map((v) => `${ORIGIN_NAMES[v.origin]}: ${v.label}`))].sort().join('; ');

/**
 * Every merged event with `recorded_by` (each source's record of it: the records merged into it, and any record of a
 * post it cites) and `agreement`; the open questions as signals: a `type_disagreement` for a post the sources read
 * differently (settled by a review decision on the post in data/tracker-review.json), a `tracker_missing` for a global
 * reset one healthy tracker lacks MISSING_AFTER_MS after it (settled the same way).
 */
export function computeAgreement(input: {
  merged: readonly Event[];
  /** Every record before merging: curated, ledger and both trackers' events. */
  records: readonly Event[];
  /** codex-reset.com's labels of all its records (resets or not), as of the build. */
  labels: readonly SourceLabel[];
  reviews: readonly TrackerReview[];
  health: readonly TrackerHealth[];
  asOf: Date;
}): { events: Event[]; signals: Signal[] } {
  const { asOf } = input;
  const byId = new Map(input.records.map((r) => [r.id, r]));
  const settled = new Set(input.reviews.filter((r) => reviewedBy(r.reviewed_at, asOf)).map((r) => r.post_id));
  // Every source's votes on each post: its records citing it, and codex-reset.com's labels of records it has no event for.
  const byPost = new Map<string, RecordedBy[]>();
  const vote = (post: string, v: RecordedBy) => {
    const list = byPost.get(post) ?? [];
    if (list.length < MAX_VOTES_PER_POST) byPost.set(post, [...list, v]);
  };
  // codex-reset.com speaks through its labels (its own words), under the id of its event where it has one.
  const timelineIds = new Set(input.records.filter((r) => r.origin === 'reset_timeline').map((r) => r.id));
  const labelled = new Set(input.labels.map((l) => `rt-${l.record_id}`));
  const spoken = (r: Event) => r.origin !== 'reset_timeline' || !labelled.has(r.id);
  for (const r of input.records) if (spoken(r)) for (const p of citedPosts(r.sources)) vote(p, voteOf(r));
  for (const { post_id, record_id, label, reads_as } of input.labels) {
    const own = `rt-${record_id}`;
    if (post_id !== null)
      vote(post_id, { origin: 'reset_timeline', record_id: timelineIds.has(own) ? own : record_id, label, reads_as });
  }
  const signals: Signal[] = [];
  const events = input.merged.map((e): Event => {
    const members = [e.id, ...e.same_as].flatMap((id) => byId.get(id) ?? []);
    const posts = [...new Set([e, ...members].flatMap((m) => citedPosts(m.sources)))].sort();
    const votes = firstPerKey(
      [...members.filter(spoken).map(voteOf), ...posts.flatMap((p) => byPost.get(p) ?? [])],
      (v) => `${v.origin}\u0000${v.record_id}`,
    );
    // Each source's readings of this event: it agrees when one of them is the event's type (a post can announce a
    // reset and a banked grant at once), and disagrees when it reads the event only as something else.
    const readings = new Map<Origin, Set<string>>();
    for (const v of votes.filter(takesSide))
      readings.set(v.origin, (readings.get(v.origin) ?? new Set()).add(v.reads_as));
    // A policy change is not a reset, so a source that calls its post "not a reset" (a boost) agrees with it.
    const accepted = e.type === 'policy_change' ? ['policy_change', 'not_a_reset'] : [e.type];
    const agreeing = [...readings.values()].filter((r) => accepted.some((t) => r.has(t))).length;
    const reviewed = posts.some((p) => settled.has(p));
    const agreement: Agreement =
      readings.size > agreeing ? (reviewed ? 'reviewed' : 'disputed') : agreeing >= 2 ? 'agreed' : 'single_source';
    votes.sort((a, b) => a.origin.localeCompare(b.origin) || a.record_id.localeCompare(b.record_id));
    const next = { ...e, recorded_by: votes.slice(0, 20), agreement };
    const post = citedPost(e.sources)?.id ?? posts[0] ?? e.id;
    if (agreement === 'disputed') signals.push(disagreement(next, post, asOf));
    else if (!reviewed && countsAsGlobal(e)) signals.push(...missing(next, post, input.health, asOf));
    return next;
  });
  // One question per id (two events can cite one post: a global reset and a banked grant of the same post).
  return { events, signals: firstPerKey(signals, (s) => s.id) };
}

type QuestionField = 'id' | 'kind' | 'title' | 'event_ids' | 'curated_type' | 'tracker_type';

/** A reviewer's question from the sources about `e`: its evidence, and what each source calls it. */
function question(e: Event, asOf: Date, q: Pick<Signal, QuestionField>): Signal {
  const { id, kind, title, event_ids, ...types } = q;
  return openQuestion('sources', asOf, {
    id: id.slice(0, 120),
    kind,
    title: capText(title, 300),
    excerpt: capText(e.evidence_text, 1000),
    url: e.sources[0]?.url ?? null,
    event_ids,
    labels: (e.recorded_by ?? [])
      .filter(takesSide)
      .slice(0, 10)
      .map(({ origin, label, reads_as }) => ({ origin, label, reads_as })),
    ...types,
  });
}

function disagreement(e: Event, post: string, asOf: Date): Signal {
  const votes = e.recorded_by ?? [];
  const tracker = votes.find((v) => v.origin === 'service_resets' && EVENT_TYPES.some((t) => t === v.reads_as));
  return question(e, asOf, {
    id: `type-disagreement-${post}`,
    kind: 'type_disagreement',
    title: `The sources disagree on post ${post}: ${describeVotes(votes)}`,
    // This event and the records merged into it (a source's label of a record it has no event for is in `labels`).
    event_ids: [e.id, ...e.same_as].slice(0, 10),
    // Where curated history holds the post, its type stands (the published event has it); codex-resets.com's word.
    ...(hasCurated(votes) ? { curated_type: e.type } : {}),
    ...(tracker === undefined ? {} : { tracker_type: tracker.reads_as as EventType }),
  });
}

function missing(e: Event, post: string, health: readonly TrackerHealth[], asOf: Date): Signal[] {
  const at = eventMs(e);
  const votes = e.recorded_by ?? [];
  // Only a tracker read well after the reset (by `asOf`), whose own list reaches back to it, is said to lack it.
  const lacks = (h: TrackerHealth) => {
    const good = Date.parse(h.last_good_check_at ?? '');
    const from = Date.parse(h.covers_from ?? '');
    return (
      !votes.some((v) => v.origin === h.origin) && good >= at + MISSING_AFTER_MS && at >= from && good <= asOf.getTime()
    );
  };
  return health.filter(lacks).map((h) =>
    question(e, asOf, {
      id: `tracker-missing-${h.origin.replace('_', '-')}-${post}`,
      kind: 'tracker_missing',
      title: `${ORIGIN_NAMES[h.origin]} does not list the global reset of post ${post} (recorded by ${describeVotes(votes)})`,
      event_ids: [e.id],
    }),
  );
}
