// Pure formatting for the page: times, relative times, percentages and numbers by Intl in the page's language, and
// the one rule for links to elsewhere (http: and https: only). The inline script formats with the same options.
import type { Lang } from '../contract.ts';

const DATE = { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' } as const;
const DATE_OPTIONS = {
  time: { ...DATE, hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZoneName: 'short' },
  date: DATE,
  month: { month: 'short', timeZone: 'UTC' },
} as const satisfies Record<string, Intl.DateTimeFormatOptions>;

/** Building an Intl formatter costs far more than using one, and a page formats hundreds of values with a few. */
const formatters = new Map<string, { format(...args: never[]): string }>();
function formatter<F extends { format(...args: never[]): string }>(id: string, make: () => F): F {
  let f = formatters.get(id) as F | undefined;
  if (f === undefined) formatters.set(id, (f = make()));
  return f;
}

const dateTime = (lang: Lang, kind: keyof typeof DATE_OPTIONS) =>
  formatter(`${lang}:${kind}`, () => new Intl.DateTimeFormat(lang, DATE_OPTIONS[kind]));

/** An instant as the reader of `lang` writes it, in UTC (the zone is named); a plain date stays a date. */
export const formatUtc = (lang: Lang, iso: string): string =>
  /^\d{4}-\d{2}-\d{2}$/.test(iso) ? formatDate(lang, iso) : dateTime(lang, 'time').format(new Date(iso));

export const formatDate = (lang: Lang, isoDate: string): string =>
  dateTime(lang, 'date').format(new Date(`${isoDate.slice(0, 10)}T00:00:00Z`));

export const formatMonth = (lang: Lang, d: Date): string => dateTime(lang, 'month').format(d);

/** "4 minutes ago" for `iso` seen from `asOf`, by Intl.RelativeTimeFormat. */
export function formatRelative(lang: Lang, iso: string, asOf: Date): string {
  const s = (Date.parse(iso) - asOf.getTime()) / 1000;
  const a = Math.abs(s);
  const rtf = formatter(`${lang}:relative`, () => new Intl.RelativeTimeFormat(lang, { numeric: 'auto' }));
  if (a < 45) return rtf.format(0, 'second');
  if (a < 3600) return rtf.format(Math.round(s / 60), 'minute');
  if (a < 86400) return rtf.format(Math.round(s / 3600), 'hour');
  return rtf.format(Math.round(s / 86400), 'day');
}

/** A number with at most `digits` decimals, or (`percent`) a share as a percentage with at most one. */
export function formatNumber(lang: Lang, n: number, digits = 3, style?: 'percent'): string {
  const options: Intl.NumberFormatOptions = { style, maximumFractionDigits: style ? 1 : digits };
  return formatter(`${lang}:${style ?? digits}`, () => new Intl.NumberFormat(lang, options)).format(n);
}

export const formatPercent = (lang: Lang, p: number): string => formatNumber(lang, p, 1, 'percent');

/** The URL when it is an absolute http(s) URL, else null: upstream links never become javascript:, data: or relative. */
export function safeHref(url: string | null | undefined): string | null {
  const u = typeof url === 'string' ? URL.parse(url) : null;
  return u !== null && (u.protocol === 'https:' || u.protocol === 'http:') ? u.href : null;
}
