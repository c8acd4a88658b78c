// Pure: a date string from a source → a UTC instant, never by the machine's time zone. `Date.parse` reads a string
// without a zone (`2026-11-21T10:00:00`, `Sat, 21 Nov 2026 10:00:00`, `2026/11/21`) as local time, so the same
// payload would become another instant on another machine. Only the two formats sources use are read (ISO 8601 /
// RFC 3339, and RFC 2822 as RSS has it), each field checked, and the caller decides per source what a missing zone
// means (docs/sources.md "Time"): read as UTC, or refused.
import { formatInstant } from '../contract.ts';

/** Longer is not a date (and would only cost regex time). */
const MAX_DATE_CHARS = 64;

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const RFC2822 =
  /^(?:[a-z]{3},?\s*)?(\d{1,2})\s+([a-z]{3})\s+(\d{2}|\d{4})\s+(\d{2}):(\d{2})(?::(\d{2}))?(?:\s*([+-]\d{4}|[a-z]{1,3}))?$/i;

/** Year, month, day, hour, minute, second and millisecond as written, and the zone if one is named. */
type Fields = { values: [number, number, number, number, number, number, number]; zone: string | undefined };

function fields(s: string): Fields | null {
  const iso = ISO.exec(s);
  const n = (m: RegExpExecArray, i: number) => Number(m[i] ?? 0);
  if (iso !== null) {
    const ms = Math.floor(Number(`0.${iso[7] ?? 0}`) * 1000);
    return { values: [n(iso, 1), n(iso, 2), n(iso, 3), n(iso, 4), n(iso, 5), n(iso, 6), ms], zone: iso[8] };
  }
  const m = RFC2822.exec(s);
  if (m === null) return null;
  // RFC 2822 §4.3: a two-digit year 00-49 is 2000-2049, 50-99 is 1950-1999.
  const year = m[3]!.length === 4 ? n(m, 3) : n(m, 3) + (n(m, 3) < 50 ? 2000 : 1900);
  const month = MONTHS.indexOf(m[2]!.toLowerCase()) + 1;
  return { values: [year, month, n(m, 1), n(m, 4), n(m, 5), n(m, 6), 0], zone: m[7] };
}

/**
 * A zone → minutes east of UTC, or undefined: `±HH`, `±HHMM`, `±HH:MM`, or an RFC 2822 §4.3 name (universal time, or
 * North America's four zones as standard `est` or daylight `edt` time). Military letters other than Z are unreliable.
 */
function offsetMinutes(zone: string): number | undefined {
  const name = zone.toLowerCase();
  if (['z', 'ut', 'utc', 'gmt'].includes(name)) return 0;
  const us = /^([ecmp])([sd])t$/.exec(name);
  if (us !== null) return (-5 - 'ecmp'.indexOf(us[1]!) + (us[2] === 'd' ? 1 : 0)) * 60;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
  if (m === null || Number(m[2]) > 23 || Number(m[3] ?? 0) > 59) return undefined;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0));
}

/**
 * `value` → `YYYY-MM-DDTHH:MM:SS[.mmm]Z`. A value without a zone is read as UTC (`utc`) or refused as
 * `no_timezone` (`reject`); anything that is not a real ISO 8601 or RFC 2822 date-time between 1970 and 9999 is
 * `bad_date`. A date alone (`2026-11-21`) names no zone either.
 */
export function readInstant(value: string | null | undefined, zoneless: 'utc' | 'reject') {
  const bad = { ok: false, reason: 'bad_date' } as const;
  const s = typeof value === 'string' ? value.trim() : '';
  const f = s.length <= MAX_DATE_CHARS ? fields(s) : null;
  if (f === null) return bad;
  const [year, month, day, hour, minute, second, ms] = f.values;
  // A leap second (:60) is read as the last moment of its minute; every other field must exist on the calendar, as
  // the round trip shows (Date.UTC rolls 2026-02-30 over into March).
  const d = new Date(Date.UTC(year, month - 1, day, hour, minute, Math.min(second, 59), second === 60 ? 999 : ms));
  const back = [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes()];
  const offset = f.zone === undefined ? 0 : offsetMinutes(f.zone);
  if (year < 1970 || second > 60 || back.some((v, i) => v !== f.values[i]) || offset === undefined) return bad;
  if (f.zone === undefined && zoneless === 'reject') return { ok: false, reason: 'no_timezone' } as const;
  const at = new Date(d.getTime() - offset * 60_000);
  return at.getUTCFullYear() < 1970 || at.getUTCFullYear() > 9999
    ? bad
    : ({ ok: true, iso: formatInstant(at) } as const);
}
