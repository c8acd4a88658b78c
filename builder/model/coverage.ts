// Pure: when the reset sources were actually watching. A window nobody observed is not a window without a reset:
// checkpoints resolve only inside observed time, and a forecast whose "time since the last reset" runs through
// unobserved time is withheld (forecast.ts).
import { HOUR_MS, toIso } from './climatology.ts';
import { DAY_MS, eventMs } from './events.ts';
import type { Event, SourceCheck, State } from './schemas.ts';
import { isGoodResetCheck } from './status.ts';

/** Good checks of a reset source at most this far apart form one observed stretch; a longer gap is a hole. */
export const COVERAGE_MAX_GAP_MS = 2 * HOUR_MS;
/** Observed stretches are kept as long as the forecast log (accuracy.ts FORECAST_LOG_RETENTION_DAYS). */
export const COVERAGE_RETENTION_DAYS = 120;
/** Bounded under any input: beyond this many stretches the oldest go (a flapping source cannot grow state). */
export const MAX_COVERAGE_SPANS = 2000;

/** An observed stretch, both ends inclusive. */
export type CoverageSpan = State['reset_coverage'][number];

type Span = { from: number; to: number };

const toSpans = (xs: readonly CoverageSpan[]): Span[] =>
  xs
    .map((s) => ({ from: Date.parse(s.from), to: Date.parse(s.to) }))
    .filter((s) => Number.isFinite(s.from) && Number.isFinite(s.to) && s.to >= s.from);

/** Sorted, with stretches at most COVERAGE_MAX_GAP_MS apart joined. */
function merge(spans: readonly Span[]): Span[] {
  const out: Span[] = [];
  for (const s of [...spans].sort((a, b) => a.from - b.from)) {
    const last = out[out.length - 1];
    if (last !== undefined && s.from - last.to <= COVERAGE_MAX_GAP_MS) last.to = Math.max(last.to, s.to);
    else out.push({ ...s });
  }
  return out;
}

/** The stored stretches extended with this run's good reset-source checks; those ended before the retention go. */
export function extendCoverage(prev: readonly CoverageSpan[], checks: readonly SourceCheck[], asOf: Date) {
  const asOfMs = asOf.getTime();
  const times = checks.filter(isGoodResetCheck).map((c) => Date.parse(c.checked_at));
  const fresh = times.filter((t) => Number.isFinite(t) && t <= asOfMs).map((t) => ({ from: t, to: t }));
  const merged = merge([...toSpans(prev), ...fresh]).filter((s) => s.to >= asOfMs - COVERAGE_RETENTION_DAYS * DAY_MS);
  return merged.slice(-MAX_COVERAGE_SPANS).map((s) => ({ from: toIso(s.from), to: toIso(s.to) }));
}

/** What a reviewed archive vouches for: its span, from its first to its last record, and nothing after it. */
export function archiveCoverage(curated: readonly Event[]): CoverageSpan[] {
  const byOrigin = new Map<string, number[]>();
  // Only imported archives keep a continuous record; a verified record is one event, not a watch.
  for (const e of curated.filter((e) => e.status === 'archived' && Number.isFinite(eventMs(e))))
    byOrigin.set(e.origin, [...(byOrigin.get(e.origin) ?? []), eventMs(e)]);
  return [...byOrigin.values()].map((ms) => ({ from: toIso(Math.min(...ms)), to: toIso(Math.max(...ms)) }));
}

/** The resolution rule: the window (startMs, endMs] was observed when it lies inside one stretch of coverage. */
export const windowObserved = (coverage: readonly CoverageSpan[], startMs: number, endMs: number): boolean =>
  merge(toSpans(coverage)).some((s) => s.from <= startMs && s.to >= endMs);

/** The end of the latest observed stretch at or before `asOfMs` (clamped to it); null when nothing was observed. */
export function coveredUntil(coverage: readonly CoverageSpan[], asOfMs: number): string | null {
  const ends = toSpans(coverage).flatMap((s) => (s.from <= asOfMs ? Math.min(s.to, asOfMs) : []));
  return ends.length === 0 ? null : toIso(Math.max(...ends));
}
