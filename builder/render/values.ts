// Pure helpers of the renderer: rounding, content times, the license text, and serialization shortcuts.
import type { TFunction } from 'i18next';
import { formatInstant } from '../contract.ts';
import { newestTime } from '../model/events.ts';
import type { Event } from '../model/schemas.ts';

/** What the license text needs of an archive (documents.ts's ArchiveView has it). */
interface LicensedArchive {
  name: string;
  url: string;
  notice: string;
  license_text?: string;
}

/** Published numbers carry 4 decimals: more digits are noise, and they would change bytes for nothing. */
export const round4 = (v: number): number => Math.round(v * 1e4) / 1e4;
/**
 * A model probability rounded to 4 decimals; one strictly between 0 and 1 stays so (0 and 1 would claim certainty),
 * while a model that says 0 or 1 still fails the schema.
 */
export const roundProbability = (v: number | null): number | null => (v === null || v <= 0 || v >= 1 ? v : Math.min(0.9999, Math.max(0.0001, round4(v))));
export const roundOrNull = (v: number | null): number | null => (v === null ? null : round4(v));
/** A copy with every number rounded to 4 decimals (integers stay as they are). */
export function roundDeep<T>(value: T): T {
  if (typeof value === 'number') return (Number.isInteger(value) ? value : round4(value)) as T;
  if (Array.isArray(value)) return value.map(roundDeep) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, roundDeep(v)])) as T;
}

/** The newest time among the events, in the form it is recorded (a date or an instant); null for none. */
export function newestAmong(events: readonly Event[]): string | null {
  let best: string | null = null;
  let bestMs = -Infinity;
  for (const e of events) {
    const t = newestTime(e);
    const ms = Date.parse(t.length === 10 ? `${t}T00:00:00Z` : t);
    if (ms > bestMs) [best, bestMs] = [t, ms];
  }
  return best;
}

/** The license texts of the archives the data comes from, one after another. */
export function renderLicense(archives: readonly LicensedArchive[]): string {
  if (archives.length === 0) return 'This API carries no third-party data.\n';
  return archives.map((a) => `${a.name} (${a.url})\n${a.notice}\n\n${a.license_text ?? ''}`.trimEnd() + '\n').join('\n');
}

/** How many answers one remembering `t` keeps: far above a build's distinct questions, a bound for a long-lived process. */
export const T_MEMO_MAX_ENTRIES = 20_000;
const memoized = new WeakSet<object>();

/**
 * i18next's `t` is pure for a fixed language and resources, and a build asks it the same questions many times (title
 * and scope by type and reason for every event, every string of the page for each of its six variants), while one
 * answer costs i18next tens of microseconds: answering repeats from a map keeps rendering from being mostly i18next.
 * Only string keys with flat options of strings, numbers and booleans are remembered, and only string answers (an
 * object answer could be mutated by its caller). Past T_MEMO_MAX_ENTRIES the map starts over. Idempotent.
 */
export function memoizeT(t: TFunction): TFunction {
  if (memoized.has(t)) return t;
  const call = t as unknown as (key: unknown, opts?: unknown) => unknown;
  const cache = new Map<string, string>();
  const remembered = ((key: unknown, opts?: unknown) => {
    const id = memoKey(key, opts);
    if (id === null) return call(key, opts);
    let v = cache.get(id);
    if (v === undefined) {
      const answer = call(key, opts);
      if (typeof answer !== 'string') return answer;
      if (cache.size >= T_MEMO_MAX_ENTRIES) cache.clear();
      cache.set(id, (v = answer));
    }
    return v;
  }) as unknown as TFunction;
  memoized.add(remembered);
  return remembered;
}

/** The map key of one question, or null when its options are not flat primitives (not remembered). */
function memoKey(key: unknown, opts: unknown): string | null {
  if (typeof key !== 'string') return null;
  if (opts === undefined) return key;
  if (typeof opts !== 'object' || opts === null || Array.isArray(opts)) return null;
  for (const v of Object.values(opts)) {
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') return null;
  }
  return `${key}\u0000${JSON.stringify(opts)}`;
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
 * (contract.ts formatInstant): state written before that rule, and upstream times with fractions, become it too.
 * Dates stay dates.
 */
export function timesToSeconds<T>(value: T): T {
  if (Array.isArray(value)) return value.map(timesToSeconds) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, TIME_FIELD.test(k) && typeof v === 'string' ? instantToSeconds(v) : timesToSeconds(v)])) as T;
}

/** One instant (or date) in the API's format, to the second; a date, or null, as it is. */
export function instantToSeconds<T extends string | null>(value: T): T {
  return (value !== null && INSTANT_WITH_FRACTION.test(value) ? formatInstant(value) : value) as T;
}
