// Pure: today's four-state status, `reset`, the latest resets, and why today's state is unknown.
import { formatInstant } from '../contract.ts';
import { eventDate, eventMs, utcDate } from './events.ts';
import type { Detail, Event, SourceCheck, SourceKind, State } from './schemas.ts';
import { countsAsGlobal } from './reach.ts';
import { describeVotes, ORIGIN_NAMES } from './agreement.ts';

/**
 * The source kinds that can report a reset: the two trackers (codex-resets.com, codex-reset.com). One good check of
 * either keeps today known; only when both have failed or gone unchecked for STALE_AFTER_MS is it `unknown`.
 */
export const RESET_SOURCE_KINDS = ['reset_tracker', 'reset_timeline'] as const satisfies readonly SourceKind[];

export const isGoodResetCheck = (c: SourceCheck): boolean =>
  c.ok && (RESET_SOURCE_KINDS as readonly SourceKind[]).includes(c.kind);

/** A reset source whose last good check is older than this no longer vouches for "no reset today". */
export const STALE_AFTER_MS = 30 * 60 * 1000;

export const TODAY_STATES = ['confirmed_today', 'recorded_today', 'no_verified_reset', 'unknown'] as const;
export type TodayState = (typeof TODAY_STATES)[number];
export type TodayStatus = ReturnType<typeof computeToday>;

/** The answer of a build that was already `unknown` is out of date once this passes without a newer one (two ticks). */
const UNKNOWN_ANSWER_HOLDS_MS = 30 * 60 * 1000;

type UnknownReason = 'unchecked' | 'failed' | 'failed_since' | 'stale' | 'expired';

/** The i18next key (common namespace) of each reason for `unknown`. */
export const explanationKey = (c: UnknownReason): string => `state.unknown_${c}`;

/**
 * Why today's state is unknown, from the fields of `/api/latest` and the reader's clock `now`, so the documents, the
 * edge's variants and the page (render/page-script.ts repeats it in plain JavaScript) say the same sentence. In order:
 * the answer is past its time (`expired`); no source was ever checked (`unchecked`); no reset-source check ever
 * succeeded (`failed`); checks after the last good one all failed (`failed_since`); the last good one is old (`stale`).
 */
export function computeExplanation(f: {
  last_check_at: string | null;
  last_good_check_at: string | null;
  generated_at: string;
  stale_after: string;
  now: string;
}): Detail {
  const generated = Date.parse(f.generated_at);
  const staleAfter = Date.parse(f.stale_after);
  const expiredAt = staleAfter > generated ? staleAfter : generated + UNKNOWN_ANSWER_HOLDS_MS;
  const why = (c: UnknownReason, params: Detail['params'] = {}): Detail => ({ code: explanationKey(c), params });
  // The build's own stale_after as written (not re-serialized), so the sentence shows the instant meta shows.
  if (Date.parse(f.now) >= expiredAt)
    return why('expired', { since: staleAfter > generated ? f.stale_after : formatInstant(expiredAt) });
  if (f.last_check_at === null) return why('unchecked');
  if (f.last_good_check_at === null) return why('failed', { checked: f.last_check_at });
  if (Date.parse(f.last_check_at) > Date.parse(f.last_good_check_at))
    return why('failed_since', { since: f.last_good_check_at, checked: f.last_check_at });
  return why('stale', { last: f.last_good_check_at });
}

/** The latest of `checks` by checked_at (the first of equals), or null. */
export const latestCheck = (checks: readonly SourceCheck[]): SourceCheck | null =>
  checks.reduce<SourceCheck | null>(
    (m, c) => (m === null || Date.parse(c.checked_at) > Date.parse(m.checked_at) ? c : m),
    null,
  );

/**
 * Today's state for the UTC date of `asOf`, from resets that happened by then. `reset` is false only when fresh checks
 * found none (null when unknown); `valid_until` is when a `no_verified_reset` answer expires.
 */
export function computeToday(events: readonly Event[], checks: readonly SourceCheck[], asOf: Date) {
  const date = utcDate(asOf);
  const now = asOf.getTime();
  const todays = events.filter((e) => countsAsGlobal(e) && eventMs(e) <= now && eventDate(e) === date);
  const verified = todays.filter(
    (e) => e.status === 'verified' && e.sources.length > 0 && e.evidence_text.trim().length > 0,
  );
  const good = latestCheck(checks.filter(isGoodResetCheck));
  const last = good?.checked_at ?? null;
  const answer = (state: TodayState, of: readonly Event[], why: Detail, validUntil: string | null = null) => ({
    date,
    // In the API's one timestamp format, whatever the stored check says (older state kept milliseconds).
    last_good_check_at: last === null ? null : formatInstant(last),
    valid_until: validUntil,
    state,
    reset: state === 'unknown' ? null : state !== 'no_verified_reset',
    event_ids: of.map((e) => e.id),
    explanation: why,
  });
  // Which reset sources vouch for the answer: those with a good check within STALE_AFTER_MS, by host ("none": none).
  const age = (c: SourceCheck) => now - Date.parse(c.checked_at);
  const vouching = checks.filter((c) => isGoodResetCheck(c) && age(c) >= 0 && age(c) < STALE_AFTER_MS);
  const read = [...new Set(vouching.map((c) => URL.parse(c.url)?.host ?? c.source))].sort().join(', ') || 'none';
  const stated = (code: string, params = {}) => ({ code: `state.${code}`, params: { date, read, ...params } });
  if (verified.length > 0) return answer('confirmed_today', verified, stated('confirmed_today'));
  // A reset the sources dispute (and curated history does not settle) is still recorded, and the answer says who says what.
  const disputed = todays.find((e) => e.agreement === 'disputed');
  if (disputed !== undefined) {
    const sources = describeVotes(disputed.recorded_by ?? []);
    return answer('recorded_today', todays, stated('recorded_today_disputed', { sources }));
  }
  if (todays.length > 0) {
    // Which sources record it: one source is a record, not evidence, and the answer says whose record it is.
    const by = todays.flatMap((e) => (e.recorded_by ?? []).filter((v) => v.reads_as === 'global_reset'));
    const sources =
      [...new Set(by.map((v) => ORIGIN_NAMES[v.origin]))].sort().join(', ') || ORIGIN_NAMES[todays[0]!.origin];
    return answer('recorded_today', todays, stated('recorded_today', { sources }));
  }
  // Half-open, as the edge reads meta.stale_after: the answer holds before checked_at + 30 min, not at that instant.
  if (good !== null && now - Date.parse(good.checked_at) < STALE_AFTER_MS) {
    const validUntil = formatInstant(Date.parse(good.checked_at) + STALE_AFTER_MS);
    return answer('no_verified_reset', [], stated('no_verified_reset'), validUntil);
  }
  // The build reads its own answer at once: never `expired`, one of the reasons the checks give.
  const at = asOf.toISOString();
  const why = computeExplanation({
    last_check_at: latestCheck(checks)?.checked_at ?? null,
    last_good_check_at: last,
    generated_at: at,
    stale_after: at,
    now: at,
  });
  return answer('unknown', [], why);
}

/** What the state held at `asOf`: an as-of build never shows a check, signal or forecast from after it. */
export function stateAsOf(state: State, asOf: Date) {
  const by = (t: string | null) => t === null || Date.parse(t) <= asOf.getTime();
  const u = state.upstream_status;
  return {
    checks: state.checks.filter((c) => by(c.checked_at)),
    signals: state.signals.filter((s) => by(s.first_seen_at) && by(s.published_at)),
    forecast_log: state.forecast_log.filter((f) => by(f.checkpoint) && by(f.logged_at)),
    forecast_resolutions: state.forecast_resolutions.filter((r) => by(r.resolved_at)),
    upstream_status: u !== null && by(u.fetched_at) ? u : null,
    tracker_watch: state.tracker_watch !== null && by(state.tracker_watch.first_seen_at) ? state.tracker_watch : null,
  };
}

/** Latest global reset that has happened by `asOf`, among all records and among verified ones. */
export function computeLatest(events: readonly Event[], asOf: Date) {
  const past = events.filter((e) => countsAsGlobal(e) && eventMs(e) <= asOf.getTime());
  past.sort((a, b) => eventMs(b) - eventMs(a));
  return { latestReset: past[0] ?? null, latestVerifiedReset: past.find((e) => e.status === 'verified') ?? null };
}
