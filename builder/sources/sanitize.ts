// Pure: the sanity rules every source record passes before it may touch state. Text is normalised, stripped of
// markup and capped; URLs must be http(s) with a host; instants must fall inside the tracked era and not after
// `asOf` (plus a small skew). What fails is not dropped silently: callers count it per reason (RejectCounts) and the
// source check names the reasons. No clock, no I/O: `asOf` comes in.
import { createHash } from 'node:crypto';
import type { Detail } from '../model/schemas.ts';
import { readInstant } from './instant.ts';

/** Length caps, in UTF-16 code units, for every kind of upstream text we keep. */
export const TEXT_LIMITS = {
  title: 300, // feed item and incident titles
  excerpt: 1000, // feed item excerpts and incident update bodies
  evidence: 4000, // a tracker record's text, kept as the event's `evidence_text` (the event schema's maximum)
  author: 80, // a record's author handle
  status_description: 300, // the status page's own description of its state, and its indicator
  component_name: 120, // status page component names
  id: 200, // upstream ids before they are mapped to ours
} as const;

/** Longer links are almost certainly not links (or carry payloads we do not want to publish). */
export const URL_MAX_CHARS = 2000;

/** A record may be dated this far after `asOf` (upstream clocks and announcement rounding); later is rejected. */
export const FUTURE_SKEW_MS = 10 * 60 * 1000;

/**
 * The start of the tracked era: Codex (and with it Codex usage limits) did not exist before 2025, and the
 * earliest ledger record is from September 2025. A record dated earlier is garbage or a hostile sort key.
 */
export const TRACKED_ERA_START = '2025-01-01T00:00:00Z';
const TRACKED_ERA_START_MS = Date.parse(TRACKED_ERA_START);

/** Why a record (or a field of it) was rejected. Each is a word operators read in the check detail. */
export const REJECT_REASONS = [
  'invalid_record',
  'bad_url',
  'bad_date',
  'no_timezone',
  'future_date',
  'before_era',
  'empty_text',
  'over_item_cap',
  'over_record_cap',
] as const;
export type RejectReason = (typeof REJECT_REASONS)[number];
export type RejectCounts = Partial<Record<RejectReason, number>>;

/**
 * What a record was kept despite, as the upstream's contract allows it: `empty_text` (the tracker documents that text may
 * be empty), `no_link` (an observed source may have no url), `unknown_group` (a timeline group it does not document:
 * kept as not a reset). Counted in the check detail, never a rejection.
 */
export const NOTE_REASONS = ['empty_text', 'no_link', 'unknown_group'] as const;
export type NoteCounts = Partial<Record<(typeof NOTE_REASONS)[number], number>>;

export function count<R extends string>(counts: Partial<Record<R, number>>, reason: R, n = 1): void {
  counts[reason] = (counts[reason] ?? 0) + n;
}

/** The first `max` entries of an upstream list (none when absent); the rest are counted as `over_item_cap`. */
export function capList<T>(list: readonly T[] | null | undefined, max: number, rejected: RejectCounts): readonly T[] {
  if (list && list.length > max) count(rejected, 'over_item_cap', list.length - max);
  return list?.slice(0, max) ?? [];
}

/** `bad_url 2, future_date 5`: the reasons counted, in their list's order. */
const listed = <R extends string>(reasons: readonly R[], counts: Partial<Record<R, number>>): string =>
  reasons
    .filter((r) => (counts[r] ?? 0) > 0)
    .map((r) => `${r} ${counts[r]}`)
    .join(', ');

export const totalRejected = (counts: RejectCounts): number =>
  REJECT_REASONS.reduce((sum, r) => sum + (counts[r] ?? 0), 0);

/**
 * The detail of a check that read its source: `code` as given, with the rejection and note counts added
 * (`rejected: 7, reasons: 'bad_url 2, future_date 5'`, `noted: ...`); a plain `ok` that rejected or noted anything
 * becomes `ok_with_rejections` or `ok_with_notes`, named in every language.
 */
export function readDetail(
  code: string,
  params: Record<string, string | number>,
  rejected: RejectCounts,
  noted: NoteCounts = {},
): Detail {
  const total = totalRejected(rejected);
  const notes = listed(NOTE_REASONS, noted);
  const counts = {
    ...(total === 0 ? {} : { rejected: total, reasons: listed(REJECT_REASONS, rejected) }),
    ...(notes === '' ? {} : { noted: notes }),
  };
  const ok = total > 0 ? 'ok_with_rejections' : notes !== '' ? 'ok_with_notes' : 'ok';
  return { code: code === 'ok' ? ok : code, params: { ...params, ...counts } };
}

/** HTML named entities feeds use in text although XML does not define them (the XML parser learns these). */
export const HTML_ENTITIES: Readonly<Record<string, string>> = {
  nbsp: ' ',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  copy: '©',
  reg: '®',
  trade: '™',
  middot: '·',
  bull: '•',
};
const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  ...HTML_ENTITIES,
};

/** Decodes numeric and a small set of named character references; unknown names stay as written. */
export function decodeEntities(s: string): string {
  return s.replace(/&(#[xX][0-9a-fA-F]{1,6}|#\d{1,7}|[a-zA-Z]{2,8});/g, (whole, ref: string) => {
    if (ref[0] === '#') {
      const cp = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      if (!Number.isFinite(cp) || cp <= 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return '';
      return String.fromCodePoint(cp);
    }
    return Object.hasOwn(NAMED_ENTITIES, ref.toLowerCase()) ? NAMED_ENTITIES[ref.toLowerCase()]! : whole;
  });
}

// Enough input to fill any capped output field; bounding it first keeps the regexes below cheap on hostile input.
const MAX_RAW_CHARS = 20_000;
const CONTROL_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;
const LONE_SURROGATES = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/**
 * Invisible and bidi format characters: every format character (category Cf: zero-width spaces and joiners, bidi
 * marks, embeddings, overrides and isolates, the BOM, the soft hyphen, tag characters U+E0001 and U+E0020-E007F), the
 * rest of the tag block, and the noncharacters (U+FDD0-FDEF, U+FFFE/FFFF and their twins in every plane). They hide
 * or reorder text (a spoofed link, a keyword split in two, text smuggled in tags) and mean nothing to a reader.
 */
const FORMAT_CHARS_BUT_JOINERS = /(?![\u200C\u200D])[\p{Cf}\p{Noncharacter_Code_Point}\u{E0000}-\u{E007F}\u2065]/gu;
/** Scripts whose spelling needs ZWNJ or ZWJ between two of their letters (Persian, Indic, Sinhala, ...). */
const JOINING_LETTER =
  '[\\p{sc=Arabic}\\p{sc=Syriac}\\p{sc=Nko}\\p{sc=Mongolian}\\p{sc=Devanagari}\\p{sc=Bengali}\\p{sc=Gurmukhi}\\p{sc=Gujarati}\\p{sc=Oriya}\\p{sc=Tamil}\\p{sc=Telugu}\\p{sc=Kannada}\\p{sc=Malayalam}\\p{sc=Sinhala}\\p{sc=Tibetan}\\p{sc=Myanmar}\\p{sc=Khmer}]';
/**
 * A joiner where it does its job (captured, kept), or any other joiner (removed). Marks after a letter and the
 * presentation selector or skin tone after an emoji are bounded (8), so the look-behind stays cheap on hostile input.
 */
const JOINERS = new RegExp(
  // Each branch starts with the joiner itself (its context checked by a look-behind that includes it), so the engine
  // only looks around at joiners, not at every character.
  `([\\u200C\\u200D](?<=${JOINING_LETTER}\\p{M}{0,8}[\\u200C\\u200D])(?=${JOINING_LETTER})|\\u200D(?<=\\p{Extended_Pictographic}[\\u{FE0F}\\p{Emoji_Modifier}]{0,8}\\u200D)(?=\\p{Extended_Pictographic}))|[\\u200C\\u200D]`,
  'gu',
);

/**
 * Control characters (but tab and line breaks), lone surrogates and FORMAT_CHARS removed, keeping the two joiners only
 * where they do their job: ZWJ between two emoji (👩‍💻, a family), ZWJ and ZWNJ between two letters of a script that
 * needs them (Persian می‌خواهم, Devanagari half forms). Between Latin letters or anywhere else they are removed, so
 * `re\u200Cset` is read as `reset`.
 */
function removeInvisible(s: string): string {
  const visible = s.replace(CONTROL_CHARS, '').replace(LONE_SURROGATES, '');
  return visible.replace(FORMAT_CHARS_BUT_JOINERS, '').replace(JOINERS, '$1');
}

/**
 * Markup → spaces. A tag is `<` and a name (or `/name`, `!`, `?`) up to the next `>` with no `<` before it; a tag
 * that never closes (`a <b unclosed and more text`) loses only its `<b`, never the text after it, which a browser
 * would have swallowed. A lone `<` before a space or digit (`5 < 6`) is text.
 */
function stripTags(s: string): string {
  return s
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(?:\/?[a-zA-Z]|[!?])[^<>]*>/g, ' ')
    .replace(/<(?:\/?[a-zA-Z][\w:-]*|!(?:--)?|\?)/g, ' ');
}

function capChars(s: string, max: number, ellipsis: boolean): string {
  if (s.length <= max) return s;
  let cut = s.slice(0, ellipsis ? max - 1 : max);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return ellipsis ? `${cut.trimEnd()}…` : cut;
}

/**
 * Untrusted text (possibly HTML) → plain single-line text of at most `max` characters. Markup is stripped both
 * before and after decoding entities, so escaped markup (`&lt;b&gt;`) cannot come back as live tags.
 */
export function cleanText(raw: string, max: number): string {
  let s = raw.length > MAX_RAW_CHARS ? raw.slice(0, MAX_RAW_CHARS) : raw;
  s = stripTags(decodeEntities(stripTags(s)));
  // Invisible characters go before markup is looked for (`<\u200Bscript>` must not become a tag after it) and again
  // after entities are decoded (`&#x202E;` is one).
  s = removeInvisible(s.replace(/[\t\n\r\u2028\u2029]/g, ' '));
  s = stripTags(removeInvisible(decodeEntities(stripTags(s))));
  return capChars(s.replace(/\s+/g, ' ').trim(), max, true);
}

/**
 * Evidence (a record's own words, never translated): line breaks kept, markup tags and control characters removed,
 * entities left as written (they are the upstream's text), cut at `max` without an ellipsis.
 */
export function cleanEvidence(raw: string, max: number): string {
  let s = raw.length > MAX_RAW_CHARS ? raw.slice(0, MAX_RAW_CHARS) : raw;
  // U+2028/2029 are line breaks to a reader but end a JavaScript string or line where a newline is expected.
  s = stripTags(removeInvisible(s.replace(/\r\n?|[\u2028\u2029]/g, '\n'))).trim();
  return capChars(s, max, false);
}

/** An http(s) URL with a host, at most URL_MAX_CHARS long, as its normalised href; anything else → null. */
export function cleanUrl(raw: string | null | undefined): string | null {
  const s = typeof raw === 'string' ? raw.trim() : '';
  const u = s.length <= URL_MAX_CHARS ? URL.parse(s) : null;
  if (u === null || (u.protocol !== 'http:' && u.protocol !== 'https:') || u.hostname === '') return null;
  // Credentials in a published link are somebody's secret, or a phishing disguise: neither belongs in the API.
  if (u.username !== '' || u.password !== '') return null;
  return u.href.length > URL_MAX_CHARS ? null : u.href;
}

/** Whether an instant may enter state: parseable, not before the tracked era, not after `asOf` + FUTURE_SKEW_MS. */
export function judgeInstant(iso: string | null | undefined, asOf: Date) {
  const ms = typeof iso === 'string' ? Date.parse(iso) : NaN;
  if (Number.isNaN(ms)) return 'bad_date';
  if (ms > asOf.getTime() + FUTURE_SKEW_MS) return 'future_date';
  if (ms < TRACKED_ERA_START_MS) return 'before_era';
  return 'ok';
}

/** A source's zoned instant (instant.ts, a zone required) that passes the date rules, or the reason it does not. */
export function judgedInstant(raw: string | null | undefined, asOf: Date) {
  const read = readInstant(raw, 'reject');
  if (!read.ok) return read;
  const verdict = judgeInstant(read.iso, asOf);
  return verdict === 'ok' ? read : ({ ok: false, reason: verdict } as const);
}

/** Upstream ids → the `[a-z0-9._-]` alphabet our ids use. Lossy (case, other characters, length): see stableIdPart. */
function sanitizeIdPart(raw: string, max: number): string {
  return raw
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[-._]+|-+$/g, '')
    .slice(0, max);
}

export const sha256Hex = (text: string, chars: number) =>
  createHash('sha256').update(text).digest('hex').slice(0, chars);

/** Hex digits of the exact upstream id appended when sanitising changed it: 32 bits keep ids apart that differ only by case. */
const ID_HASH_HEX_CHARS = 8;

/**
 * An upstream id → our id part, a function of that id alone (never of arrival order or of the other records). An id
 * already in our alphabet (lower case `a-z0-9._-`, starting with a letter or digit, at most `max` characters) is kept as
 * it is; any other (`A` next to `a`, `RST 2026/11/18`, an overlong one) is sanitised, cut to leave room, and suffixed
 * with `-` and a short SHA-256 of the exact original, so `A` and `a` stay two records, with the same ids on every run.
 */
export function stableIdPart(raw: string, max: number): string {
  if (sanitizeIdPart(raw, max) === raw && raw !== '') return raw;
  const hash = sha256Hex(raw, ID_HASH_HEX_CHARS);
  const head = sanitizeIdPart(raw, max - ID_HASH_HEX_CHARS - 1).replace(/[-._]+$/, '');
  return head === '' ? hash : `${head}-${hash}`;
}
