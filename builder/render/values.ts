// Pure helpers of the renderer: rounding, content times, credits, the license text, and serialization shortcuts.
import { formatInstant } from '../contract.ts';
import { newestTime } from '../model/events.ts';
import type { Announcement, Event } from '../model/schemas.ts';
import type { ArchiveInfo } from '../model/inputs.ts';

/** Published numbers carry 4 decimals: more digits are noise, and they would change bytes for nothing. */
export const round4 = (v: number): number => Math.round(v * 1e4) / 1e4;
/**
 * A model probability rounded to 4 decimals; one strictly between 0 and 1 stays so (0 and 1 would claim certainty),
 * while a model that says 0 or 1 still fails the schema.
 */
export const roundProbability = (v: number | null): number | null =>
  v === null || v <= 0 || v >= 1 ? v : Math.min(0.9999, Math.max(0.0001, round4(v)));
export const roundOrNull = (v: number | null): number | null => (v === null ? null : round4(v));
/** A deep copy of a JSON value with `leaf` applied to every value that is not an array or object, given its key. */
function mapLeaves<T>(value: T, leaf: (v: unknown, key: string) => unknown, key = ''): T {
  if (Array.isArray(value)) return value.map((v) => mapLeaves(v, leaf)) as T;
  if (value === null || typeof value !== 'object') return leaf(value, key) as T;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapLeaves(v, leaf, k)])) as T;
}

/** A copy with every number rounded to 4 decimals (integers stay as they are). */
export const roundDeep = <T>(value: T): T =>
  mapLeaves(value, (v) => (typeof v === 'number' && !Number.isInteger(v) ? round4(v) : v));

/**
 * The newest time among the events, in the form it is recorded (a date or an instant); null for none. The service's own
 * read of a reset's post counts: it is when a reset became verified, or was last found not verifiable.
 */
export function newestAmong(events: readonly Event[]): string | null {
  const ms = (t: string) => Date.parse(t.length === 10 ? `${t}T00:00:00Z` : t);
  return events
    .flatMap((e) => [newestTime(e), ...(e.verification?.read_at ? [e.verification.read_at] : [])])
    .reduce<string | null>((best, t) => (best === null || ms(t) > ms(best) ? t : best), null);
}

// Each tracker asks everyone who shows its data to credit it on the same surface: codex-resets.com a link back,
// codex-reset.com "Data: codex-reset.com" with a link. A document holding anything from one (a record, a label in
// `recorded_by`, an announcement, a watch) carries its credit, worded as the source asks (`notice`).
const TRACKER_CREDIT = { name: 'codex-resets.com', url: 'https://codex-resets.com/', notice: 'Data: codex-resets.com' };
const TIMELINE_CREDIT = { name: 'codex-reset.com', url: 'https://codex-reset.com/', notice: 'Data: codex-reset.com' };
export type Credit = typeof TRACKER_CREDIT;

/** Whether an event shows codex-resets.com's data, codex-reset.com's: by its origin or any source in `recorded_by`. */
export const dataOf = (e: Event) => {
  const o = new Set<string>([e.origin, ...(e.recorded_by ?? []).map((r) => r.origin)]);
  return { tracker: o.has('service_resets'), timeline: o.has('reset_timeline') };
};

/** Whose data an announced reset is: codex-reset.com's announced window, else codex-resets.com's scheduled reset. */
export const announcementDataOf = (a: Announcement) => ({
  tracker: a.origin !== 'reset_timeline',
  timeline: a.origin === 'reset_timeline',
});

/**
 * The credits of a document showing `events`, and the trackers' other data it shows (`also`: codex-resets.com's
 * announcement or watch, codex-reset.com's announced window).
 */
export function creditsFor(events: Iterable<Event>, also: { tracker?: boolean; timeline?: boolean } = {}): Credit[] {
  const shown = Array.from(events, dataOf);
  const has = (k: 'tracker' | 'timeline') => also[k] || shown.some((d) => d[k]);
  return [...(has('tracker') ? [TRACKER_CREDIT] : []), ...(has('timeline') ? [TIMELINE_CREDIT] : [])];
}

/** A credit as one line of plain text (feeds, calendar, notifications, terminals): "Data: codex-reset.com (https://…)". */
export const creditLine = (c: Credit): string => `${c.notice} (${c.url})`;

export function renderLicense(archives: readonly ArchiveInfo[]): string {
  if (archives.length === 0) return 'This API carries no third-party data.\n';
  return archives
    .map((a) => `${a.name} (${a.url})\n${a.notice}\n\n${a.license_text ?? ''}`.trimEnd() + '\n')
    .join('\n');
}

/**
 * `JSON.stringify(doc)` for an object whose last property is `last`, given that array's elements already serialized:
 * JSON.stringify composes, so `{..., "last": [a, b]}` is the rest's text with the elements' texts spliced in.
 */
export function spliceLastArray(doc: Record<string, unknown>, last: string, items: readonly string[]): string {
  const head = JSON.stringify({ ...doc, [last]: [] });
  const tail = `${JSON.stringify(last)}:[]}`;
  if (!head.endsWith(tail)) throw new Error(`[render] ${last} is not the last property of the document`);
  return `${head.slice(0, -2)}${items.join(',')}]}`;
}

/** Field names that hold an instant (or, for day-precision records, a date): `*_at` and these. */
const TIME_FIELD = /(_at|^checkpoint|^scheduled_for|^valid_until|^stale_after)$/;
const INSTANT_WITH_FRACTION = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+Z$/;

/**
 * A copy with every instant in a time field (by name, so no text is touched) in the API's one format, to the second
 * (contract.ts formatInstant), state written before that rule and upstream times with fractions too; dates stay dates.
 */
export const timesToSeconds = <T>(value: T): T =>
  mapLeaves(value, (v, key) => (typeof v === 'string' && TIME_FIELD.test(key) ? instantToSeconds(v) : v));

/** One instant (or date) in the API's format, to the second; a date, or null, as it is. */
export const instantToSeconds = <T extends string | null>(value: T): T =>
  (value !== null && INSTANT_WITH_FRACTION.test(value) ? formatInstant(value) : value) as T;
