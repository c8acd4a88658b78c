// Pure: a date string from a source → a UTC instant, never by the machine's time zone. `Date.parse` reads a string
// without a zone (`2026-11-21T10:00:00`, `Sat, 21 Nov 2026 10:00:00`, `2026/11/21`) as local time, so the same
// payload would become another instant on another machine. Only the two formats sources use are read (ISO 8601 /
// RFC 3339, and RFC 2822 as RSS has it), each field checked, and the caller decides per source what a missing zone
// means (docs/sources.md "Time"): read as UTC, or refused.
import { formatInstant } from '../contract.ts';

/** What a value without a zone means for a source: UTC, or a value the source must not send. */
export type ZonelessRule = 'utc' | 'reject';

export type InstantReading = { ok: true; iso: string } | { ok: false; reason: 'bad_date' | 'no_timezone' };

/** Longer is not a date (and would only cost regex time). */
const MAX_DATE_CHARS = 64;
const MINUTE_MS = 60_000;

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const RFC2822 =
  /^(?:[a-z]{3},?\s*)?(\d{1,2})\s+([a-z]{3})\s+(\d{2}|\d{4})\s+(\d{2}):(\d{2})(?::(\d{2}))?(?:\s*([+-]\d{4}|[a-z]{1,3}))?$/i;
/** RFC 2822 §4.3 zone names, in minutes east of UTC. Military letters other than Z are unreliable: refused. */
const NAMED_ZONES: Readonly<Record<string, number>> = {
  ut: 0,
  utc: 0,
  gmt: 0,
  z: 0,
  edt: -240,
  est: -300,
  cdt: -300,
  cst: -360,
  mdt: -360,
  mst: -420,
  pdt: -420,
  pst: -480,
};

interface Fields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  ms: number;
  /** Minutes east of UTC; null when the value names no zone. */
  offsetMin: number | null;
}

function offsetMinutes(raw: string): number | null {
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(raw);
  if (m === null) return null;
  const h = Number(m[2]);
  const min = Number(m[3] ?? '0');
  if (h > 23 || min > 59) return null;
  return (m[1] === '-' ? -1 : 1) * (h * 60 + min);
}

function isoFields(s: string): Fields | 'bad' | null {
  const m = ISO.exec(s);
  if (m === null) return null;
  const zone = m[8];
  let offsetMin: number | null = null;
  if (zone !== undefined) {
    offsetMin = zone === 'Z' || zone === 'z' ? 0 : offsetMinutes(zone);
    if (offsetMin === null) return 'bad';
  }
  const ms = m[7] === undefined ? 0 : Math.floor(Number(`0.${m[7]}`) * 1000);
  return {
    year: +m[1]!,
    month: +m[2]!,
    day: +m[3]!,
    hour: +(m[4] ?? 0),
    minute: +(m[5] ?? 0),
    second: +(m[6] ?? 0),
    ms,
    offsetMin,
  };
}

function rfc2822Fields(s: string): Fields | 'bad' | null {
  const m = RFC2822.exec(s);
  if (m === null) return null;
  const month = MONTHS.indexOf(m[2]!.toLowerCase()) + 1;
  if (month === 0) return 'bad';
  // RFC 2822 §4.3: a two-digit year 00-49 is 2000-2049, 50-99 is 1950-1999.
  const y = Number(m[3]);
  const year = m[3]!.length === 2 ? (y < 50 ? 2000 + y : 1900 + y) : y;
  const zone = m[7];
  let offsetMin: number | null = null;
  if (zone !== undefined) {
    offsetMin = /^[+-]/.test(zone) ? offsetMinutes(zone) : (NAMED_ZONES[zone.toLowerCase()] ?? null);
    if (offsetMin === null) return 'bad';
  }
  return { year, month, day: +m[1]!, hour: +m[4]!, minute: +m[5]!, second: +(m[6] ?? 0), ms: 0, offsetMin };
}

/**
 * `value` → `YYYY-MM-DDTHH:MM:SS[.mmm]Z`. A value without a zone is read as UTC (`utc`) or refused as
 * `no_timezone` (`reject`); anything that is not a real ISO 8601 or RFC 2822 date-time between 1970 and 9999 is
 * `bad_date`. A date alone (`2026-11-21`) names no zone either.
 */
export function readInstant(value: string | null | undefined, zoneless: ZonelessRule): InstantReading {
  if (typeof value !== 'string') return { ok: false, reason: 'bad_date' };
  const s = value.trim();
  if (s === '' || s.length > MAX_DATE_CHARS) return { ok: false, reason: 'bad_date' };
  const f = isoFields(s) ?? rfc2822Fields(s);
  if (f === null || f === 'bad') return { ok: false, reason: 'bad_date' };
  const { year, month, day, hour, minute, second, ms } = f;
  // A leap second (:60) is read as the last moment of its minute; everything else must exist on the calendar.
  if (
    year < 1970 ||
    year > 9999 ||
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > daysIn(year, month) ||
    hour > 23 ||
    minute > 59 ||
    second > 60
  ) {
    return { ok: false, reason: 'bad_date' };
  }
  if (f.offsetMin === null && zoneless === 'reject') return { ok: false, reason: 'no_timezone' };
  const t =
    Date.UTC(year, month - 1, day, hour, minute, Math.min(second, 59), second === 60 ? 999 : ms) -
    (f.offsetMin ?? 0) * MINUTE_MS;
  const d = new Date(t);
  if (d.getUTCFullYear() < 1970 || d.getUTCFullYear() > 9999) return { ok: false, reason: 'bad_date' };
  return { ok: true, iso: formatInstant(d) };
}

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}
