// Pure: walk-forward backtest of the candidate models (candidates.ts) on a fixed history, scored by ResetBench's
// rules, against the all-history climatology and trailing 30- and 90-day climatologies, with block-bootstrap
// intervals. Candidates and their grid points are chosen by rolling-origin evaluation: at each origin, only on
// checkpoints resolved before it.
import {
  ANNOUNCEMENT_OVERDUE_GRACE_MS,
  dueMs,
  followThrough,
  pastAnnouncements,
  promisedBy,
  type AnnouncementReview,
} from '../builder/model/announcement.ts';
import {
  HOUR_MS,
  HORIZONS_HOURS,
  TRAILING_CLIMATOLOGY_DAYS,
  checkpointAtOrAfter,
  toIso,
  trailingClimatology,
  type HorizonHours,
} from '../builder/model/climatology.ts';
import { eventMs } from '../builder/model/events.ts';
import { MODEL_VERSION, clipProbability, computeForecast, resetsKnownAt } from '../builder/model/forecast.ts';
import { countsAsGlobal } from '../builder/model/reach.ts';
import {
  RESETBENCH_RULES,
  brier,
  reliabilityTable,
  resolveCheckpoint,
  skillWithInterval,
} from '../builder/model/accuracy.ts';
import type { Event } from '../builder/model/schemas.ts';
import { BASELINES, CANDIDATES, SHIPPED_PARAMS, family, type Candidate, type Row } from './candidates.ts';
import { LEADERBOARD, announcementMs, scoreLeaderboardWindow } from './resetbench-window.ts';

/** Rolling origins: the first of every month from here on (two months of forecasts before it to choose from). */
const FIRST_ROLLING_ORIGIN = '2026-05-01T00:00:00Z';
/** Seven days of checkpoints per bootstrap block: longer than a 48 h window's overlap and than most bursts. */
export const BOOTSTRAP = { blockLength: 28, iterations: 2000, seed: 16 } as const;
/** Fewer announcement checkpoints than a week's worth (28) cannot tell a follow-through estimate from luck. */
export const MIN_ANNOUNCEMENT_ROWS = 28;

export type ScoreLine = ReturnType<typeof scoreLine>;
export type BacktestResult = ReturnType<typeof computeBacktest>;
type Scored = { p: number; row: Row };

const perCandidate = <T>(f: (c: Candidate) => T) =>
  Object.fromEntries(CANDIDATES.map((c) => [c, f(c)])) as Record<Candidate, T>;

const mean = (xs: readonly number[]) => (xs.length === 0 ? null : xs.reduce((s, x) => s + x, 0) / xs.length);

/** Global resets as ResetBench's resolver takes them, dated by `ms`. */
const resetsBy = (events: readonly Event[], ms: (e: Event) => number) =>
  events.filter(countsAsGlobal).map((e) => ({ id: e.id, ms: ms(e) }));

/**
 * A checkpoint's rows (one per horizon with both trailing base rates), from what was known then: the outcome is left
 * false for the caller to resolve, and plays no part in a probability. Null below the forecast's minimum sample.
 */
function rowsAt(events: readonly Event[], at: number): Row[] | null {
  const fc = computeForecast(events, new Date(at));
  if (fc.base_rate_24h === null || fc.base_rate_48h === null) return null;
  const times = resetsKnownAt(events, new Date(at));
  return HORIZONS_HOURS.flatMap((h): Row[] => {
    const [t30, t90] = TRAILING_CLIMATOLOGY_DAYS.map((days) => trailingClimatology(times, at, days, h * HOUR_MS));
    if (t30 == null || t90 == null) return [];
    const all = h === 24 ? fc.base_rate_24h! : fc.base_rate_48h!;
    return [{ at, h, times, outcome: false, base: { climatology_all: all, trailing_30d: t30, trailing_90d: t90 } }];
  });
}

/** Every scorable checkpoint row, from the first with a forecast until the last window that closed by `toMs`. */
export function planRows(events: readonly Event[], fromMs: number, toMs: number) {
  const resets = resetsBy(events, eventMs).sort((a, b) => a.ms - b.ms);
  const rows: Row[] = [];
  let considered = 0;
  let skipped = 0;
  for (let at = checkpointAtOrAfter(fromMs); at + 24 * HOUR_MS <= toMs; at += 6 * HOUR_MS) {
    considered++;
    const candidates = rowsAt(events, at);
    if (candidates === null) skipped++;
    for (const row of candidates ?? []) {
      const resolved = resolveCheckpoint(resets, at, row.h, toMs);
      if (resolved !== null) rows.push({ ...row, outcome: resolved.outcome });
    }
  }
  return { rows, considered, skipped };
}

/** Mean of the 24h and 48h mean Brier over the `use`d rows. */
function objective(rows: readonly Row[], bs: readonly (number | null)[], use: (r: Row, i: number) => boolean): number {
  const by: Record<HorizonHours, number[]> = { 24: [], 48: [] };
  rows.forEach((r, i) => {
    if (use(r, i)) by[r.h].push(bs[i]!);
  });
  return ((mean(by[24]) ?? Infinity) + (mean(by[48]) ?? Infinity)) / 2;
}

/** The first of the month after the one `ms` falls in. */
const nextMonth = (ms: number) => Date.UTC(new Date(ms).getUTCFullYear(), new Date(ms).getUTCMonth() + 1, 1);

/** `first` (a month's first) and every month's first after it, before `toMs`. */
function monthStarts(first: number, toMs: number): number[] {
  const out: number[] = [];
  for (let d = first; d < toMs; d = nextMonth(d)) out.push(d);
  return out;
}

const closedBy = (r: Row, originMs: number) => r.at + r.h * HOUR_MS <= originMs;

/**
 * A candidate on every row: `choiceAt(origin)` is the grid index with the lowest objective on the rows resolved before
 * the origin (ties keep grid order), and `oos` the out-of-sample probability per row: the grid point chosen at the
 * start of the row's month, null before any.
 */
function fit(c: Candidate, rows: readonly Row[], toMs: number) {
  const f = family(c);
  const probs = f.grid.map((params) => rows.map((r) => f.probability(r, params)));
  const briers = probs.map((ps) => ps.map((p, i) => brier(p, rows[i]!.outcome)));
  const choiceAt = (o: number) => {
    const scores = briers.map((bs) => objective(rows, bs, (r) => closedBy(r, o)));
    return scores.indexOf(Math.min(...scores));
  };
  const inner = monthStarts(nextMonth(Math.min(...rows.map((r) => r.at))), toMs)
    .filter((o) => rows.some((q) => closedBy(q, o)))
    .map((o) => ({ o, g: choiceAt(o) }))
    .reverse();
  const oos = rows.map((r, i) => {
    if (f.grid.length === 1) return probs[0]![i]!;
    const choice = inner.find((x) => x.o <= r.at);
    return choice === undefined ? null : probs[choice.g]![i]!;
  });
  return { oos, choiceAt };
}

/**
 * At each monthly origin every candidate is scored by one objective, the mean of the 24h and 48h Brier, on the same
 * rows: those resolved before the origin for which every candidate had an out-of-sample forecast (a tuned family's
 * forecast of a row uses the grid point chosen on the rows resolved before the start of the row's month, an inner
 * rolling origin). The winner, with its grid point chosen at the origin, forecasts the month after it.
 */
function selectByRollingOrigin(rows: readonly Row[], toMs: number) {
  const fits = perCandidate((c) => fit(c, rows, toMs));
  const oosBrier = perCandidate((c) => fits[c].oos.map((p, i) => (p === null ? null : brier(p, rows[i]!.outcome))));
  /** The probability the rolling-origin selection forecast each row with (null before the first origin). */
  const selected: (number | null)[] = rows.map(() => null);
  const starts = monthStarts(Date.parse(FIRST_ROLLING_ORIGIN), toMs);
  const origins = starts.map((o, k) => {
    const scored = (r: Row, i: number) => closedBy(r, o) && CANDIDATES.every((c) => oosBrier[c][i] !== null);
    const scores = perCandidate((c) => objective(rows, oosBrier[c], scored));
    const chosen = perCandidate((c) => family(c).grid[fits[c].choiceAt(o)]);
    // Ties keep CANDIDATES order; a strict improvement is needed to move.
    const winner = CANDIDATES.reduce((best, c) => (scores[c] < scores[best] ? c : best), CANDIDATES[0]!);
    rows.forEach((r, i) => {
      if (r.at >= o && r.at < (starts[k + 1] ?? Infinity)) selected[i] = family(winner).probability(r, chosen[winner]);
    });
    const params = perCandidate((c) => family(c).describe(chosen[c]));
    return { origin: toIso(o), rows: rows.filter(scored).length, scores, params, winner };
  });
  return { origins, selected, fits };
}

function scoreLine(name: string, h: HorizonHours, all: readonly Scored[]) {
  const rows = all.filter((s) => s.row.h === h);
  return {
    name,
    horizon_hours: h,
    forecasts: rows.length,
    brier: mean(rows.map((s) => brier(s.p, s.row.outcome))),
    observed_frequency: mean(rows.map((s) => (s.row.outcome ? 1 : 0))),
    mean_probability: mean(rows.map((s) => s.p)),
    versus: BASELINES.map((baseline) => ({
      baseline,
      baseline_brier: mean(rows.map((s) => brier(s.row.base[baseline], s.row.outcome))),
      ...skillWithInterval(
        rows.map((s) => ({ p: s.p, base: s.row.base[baseline], outcome: s.row.outcome })),
        BOOTSTRAP,
      ),
    })),
    reliability: reliabilityTable(rows.map((s) => ({ p: s.p, outcome: s.row.outcome }))),
  };
}

/**
 * Rows whose checkpoint had an `ahead` announcement pending (posted at or before it, its promised reset not yet
 * recorded) and due inside the horizon (due = end of the promised window, 48 h when it names none; up to 6 h
 * overdue still counts, as in the live rule). Each is scored with the shipped model alone and with the
 * announcement term: max(model, follow-through), the follow-through estimated from the announcements whose
 * window had closed by the checkpoint (out of sample). Below MIN_ANNOUNCEMENT_ROWS nothing can be claimed.
 */
function announcementRows(rows: readonly Row[], events: readonly Event[], review: readonly AnnouncementReview[]) {
  const resets = resetsBy(events, eventMs).filter((r) => Number.isFinite(r.ms));
  const ahead = review.filter((a) => a.classification === 'ahead');
  const alone: Scored[] = [];
  const withTerm: Scored[] = [];
  const posts = new Set<string>();
  for (const row of rows) {
    const pending = ahead.filter((a) => {
      const from = Date.parse(a.announced_at);
      const due = dueMs(a);
      if (from > row.at || due <= row.at - ANNOUNCEMENT_OVERDUE_GRACE_MS || due > row.at + row.h * HOUR_MS)
        return false;
      return !resets.some((r) => promisedBy(a, r) && r.ms >= from - 60_000 && r.ms <= row.at);
    });
    if (pending.length === 0) continue;
    pending.forEach((a) => posts.add(a.post_id));
    const p = family(MODEL_VERSION).probability(row, SHIPPED_PARAMS);
    alone.push({ row, p });
    withTerm.push({ row, p: Math.max(p, clipProbability(followThrough(pastAnnouncements(events, row.at, review)))) });
  }
  const lines = HORIZONS_HOURS.flatMap((h) => [
    scoreLine(`${MODEL_VERSION} alone, announcement checkpoints`, h, alone),
    scoreLine(`${MODEL_VERSION} + announcement term`, h, withTerm),
  ]);
  return { n: alone.length, enough: alone.length >= MIN_ANNOUNCEMENT_ROWS, lines, posts: [...posts].sort() };
}

/**
 * Each candidate against the goal: out of sample over the whole evaluation, its skill interval against both trailing
 * base rates reaches 0 at both horizons; and on ResetBench's leaderboard window, with the grid point chosen at the
 * latest origin before it, its Brier is at or below the peer median at both horizons.
 */
function goals(
  events: readonly Event[],
  evaluated: readonly { row: Row; i: number }[],
  fits: ReturnType<typeof selectByRollingOrigin>['fits'],
  origins: readonly { origin: string }[],
) {
  const windowStart = Date.parse(LEADERBOARD.first_checkpoint);
  const before = origins.filter((o) => Date.parse(o.origin) <= windowStart).at(-1);
  return perCandidate((c) => {
    const scored = evaluated.flatMap(({ row, i }) => (fits[c].oos[i] === null ? [] : [{ row, p: fits[c].oos[i]! }]));
    const skill_ok = HORIZONS_HOURS.every((h) =>
      scoreLine(c, h, scored).versus.every((v) => v.baseline === 'climatology_all' || (v.upper ?? -1) >= 0),
    );
    const f = family(c);
    const params = f.grid[before === undefined ? 0 : fits[c].choiceAt(Date.parse(before.origin))];
    const window = scoreLeaderboardWindow(events, (at, h) => {
      const row = rowsAt(events, at)?.find((r) => r.h === h);
      return row === undefined ? null : f.probability(row, params);
    });
    const window_ok = window.every((w) => w.brier <= w.peer_median);
    return { skill_ok, window, window_params: f.describe(params), window_ok };
  });
}

/**
 * The backtest over the whole history: windows that close after the last event are unresolved and not scored.
 * `announcementReview`: data/announcement-review.json's posts, whose `ahead` ones the announcement rows score.
 */
export function computeBacktest(events: readonly Event[], announcementReview: readonly AnnouncementReview[] = []) {
  const times = events.map(eventMs).filter(Number.isFinite);
  if (times.length === 0) throw new Error('[research/backtest] no events to backtest on');
  const fromMs = Math.min(...times);
  const toMs = Math.max(...times);
  const { rows, considered, skipped } = planRows(events, fromMs, toMs);
  const { origins, selected, fits } = selectByRollingOrigin(rows, toMs);
  // Evaluated: the rows from the first rolling origin on.
  const evaluated = rows.map((row, i) => ({ row, i })).filter(({ i }) => selected[i] !== null);
  const models: { name: string; p: (i: number, row: Row) => number | null }[] = [
    { name: 'selected by rolling origin (out of sample)', p: (i) => selected[i]! },
    {
      name: `${MODEL_VERSION} as shipped (forecast.ts parameters)`,
      p: (_i, row) => family(MODEL_VERSION).probability(row, SHIPPED_PARAMS),
    },
    ...CANDIDATES.map((c) => ({
      name: family(c).grid.length === 1 ? `${c} (nothing to tune)` : `${c}, rolling-origin (out of sample)`,
      p: (i: number) => fits[c].oos[i] ?? null,
    })),
  ];
  const lineFor = (m: (typeof models)[number], outcomeOf: (row: Row) => boolean) => {
    const scored = evaluated.flatMap(({ row, i }) => {
      const p = m.p(i, row);
      return p === null ? [] : [{ row: { ...row, outcome: outcomeOf(row) }, p }];
    });
    return HORIZONS_HOURS.map((h) => scoreLine(m.name, h, scored));
  };
  // The same rows with each reset dated by its announcement, as ResetBench's ground truth dates it.
  const announced = resetsBy(events, announcementMs);
  const rbOutcome = (r: Row) => resolveCheckpoint(announced, r.at, r.h, Infinity)!.outcome;
  const flips = evaluated
    .filter(({ row }) => rbOutcome(row) !== row.outcome)
    .map(({ row }) => ({ checkpoint: toIso(row.at), horizon_hours: row.h, outcome: row.outcome }));
  const evalAts = evaluated.map((x) => x.row.at);
  const last = origins.at(-1);
  const goal = goals(events, evaluated, fits, origins);
  // The ship rule: among the candidates that meet the goal, the one with the lowest objective at the latest origin;
  // the plain winner when none does.
  const meeting = CANDIDATES.filter((c) => goal[c].skill_ok && goal[c].window_ok);
  const winner = last?.winner ?? MODEL_VERSION;
  const shipped =
    last === undefined || meeting.length === 0
      ? winner
      : meeting.reduce((best, c) => (last.scores[c] < last.scores[best] ? c : best), meeting[0]!);
  return {
    rules: RESETBENCH_RULES,
    from: toIso(fromMs),
    to: toIso(toMs),
    evaluation: {
      from: evalAts.length === 0 ? '-' : toIso(Math.min(...evalAts)),
      to: evalAts.length === 0 ? '-' : toIso(Math.max(...evalAts)),
    },
    checkpoints: { considered, skipped_insufficient_data: skipped },
    origins,
    winner: { model: winner, params: last?.params[winner] ?? '' },
    goal,
    shipped: { model: shipped, params: last?.params[shipped] ?? '', meets_goal: meeting.includes(shipped) },
    lines: models.flatMap((m) => lineFor(m, (r) => r.outcome)),
    resetbench_time: { flips, lines: models.slice(0, 2).flatMap((m) => lineFor(m, rbOutcome)) },
    announcements: announcementRows(rows, events, announcementReview),
  };
}
