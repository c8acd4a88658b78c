// Pure: the words of an X post from the `html` of X's oEmbed answer. The html is hostile, so it is walked by a small
// tokenizer that follows HTML's own rules where they decide what is text (comments, raw-text elements such as
// `<script>`, quoted attribute values, a tag cut off by the end) and keeps nothing but the few tokens it needs: one
// linear pass, no tree, no recursion, so nesting, huge attribute values or a megabyte of markup cost only their length.
import { cleanEvidence, decodeEntities, TEXT_LIMITS } from './sanitize.ts';

type Token = { kind: 'text'; text: string } | { kind: 'start' | 'end'; name: string; classes: string };

/** Elements whose content is never text (raw text, escapable raw text): skipped whole up to their end tag. */
const RAW_TEXT_END: ReadonlyMap<string, RegExp> = new Map(
  ['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript'].map((name) => [
    name,
    new RegExp(`</${name}[\\t\\n\\f\\r />]`, 'gi'),
  ]),
);
/** Raw text kept before the words are cleaned: enough for the 4,000 characters kept, and a bound on hostile input. */
const MAX_RAW_TEXT_CHARS = 20_000;

const isSpace = (c: string | undefined) => c === ' ' || c === '\n' || c === '\t' || c === '\r' || c === '\f';
const isLetter = (c: string | undefined) => c !== undefined && /^[A-Za-z]$/.test(c);

/** A tag's attributes from `j` (after its name): where the tag ends and its `class`; null if cut off by the end. */
function readAttributes(html: string, j: number): { next: number; classes: string } | null {
  let classes: string | null = null;
  for (const n = html.length; ;) {
    while (j < n && (isSpace(html[j]) || html[j] === '/')) j++;
    if (j >= n) return null;
    if (html[j] === '>') return { next: j + 1, classes: classes ?? '' };
    const nameAt = j++; // an attribute name may start with `=`
    while (j < n && !isSpace(html[j]) && html[j] !== '/' && html[j] !== '>' && html[j] !== '=') j++;
    const isClass = j - nameAt === 5 && html.slice(nameAt, j).toLowerCase() === 'class';
    while (j < n && isSpace(html[j])) j++;
    if (html[j] !== '=') continue;
    for (j++; j < n && isSpace(html[j]);) j++;
    let from = j;
    const quote = html[j];
    if (quote === '"' || quote === "'") {
      const close = html.indexOf(quote, ++from);
      if (close === -1) return null;
      j = close + 1;
      if (isClass) classes ??= html.slice(from, close);
    } else {
      while (j < n && !isSpace(html[j]) && html[j] !== '>') j++;
      if (isClass) classes ??= html.slice(from, j);
    }
  }
}

/** Where markup starting at `i` (a `<`) that is not a tag ends: a comment, `<!...>`, `<?...>`, `</>`; null if a tag or text. */
function skipNonTag(html: string, i: number): number | null {
  if (html.startsWith('<!--', i)) {
    // `<!-->` and `<!--->` are empty comments; an unclosed comment runs to the end.
    if (html.startsWith('>', i + 4) || html.startsWith('->', i + 4)) return html.indexOf('>', i + 4) + 1;
    const close = html.indexOf('-->', i + 4);
    return close === -1 ? html.length : close + 3;
  }
  const c = html[i + 1];
  const bogus = c === '!' || c === '?' || (c === '/' && !isLetter(html[i + 2]));
  if (!bogus) return null;
  const gt = html.indexOf('>', i + 2);
  return gt === -1 ? html.length : gt + 1;
}

function* tokens(html: string): Generator<Token> {
  for (let i = 0, n = html.length; i < n;) {
    const lt = html.indexOf('<', i);
    if (lt !== i) yield { kind: 'text', text: html.slice(i, lt === -1 ? n : lt) };
    if (lt === -1) return;
    const skipped = skipNonTag(html, lt);
    if (skipped !== null) {
      i = skipped;
      continue;
    }
    const end = html[lt + 1] === '/';
    let j = lt + (end ? 2 : 1);
    if (!isLetter(html[j])) {
      yield { kind: 'text', text: '<' }; // `5 < 6`: a `<` that opens no tag is text
      i = lt + 1;
      continue;
    }
    const nameAt = j;
    while (j < n && !isSpace(html[j]) && html[j] !== '/' && html[j] !== '>') j++;
    const name = html.slice(nameAt, j).toLowerCase();
    const attributes = readAttributes(html, j);
    if (attributes === null) return;
    yield { kind: end ? 'end' : 'start', name, classes: end ? '' : attributes.classes };
    i = attributes.next;
    const rawEnd = end ? undefined : RAW_TEXT_END.get(name);
    if (rawEnd) {
      rawEnd.lastIndex = i;
      i = rawEnd.exec(html)?.index ?? n;
    }
  }
}

/** Spaces and tabs run together and trimmed on every line, as a reader sees them; blank lines at either end dropped. */
const tidy = (s: string) =>
  s
    .split('\n')
    .map((line) => line.replace(/[ \t]+/g, ' ').trim())
    .join('\n')
    .trim();

const isTweetQuote = (t: Token) =>
  t.kind === 'start' &&
  t.name === 'blockquote' &&
  decodeEntities(t.classes)
    .split(/[\t\n\f\r ]+/)
    .includes('twitter-tweet');

/**
 * The text of the first `<p>` inside the first `<blockquote class="twitter-tweet">` as a browser shows it (`<br>` a
 * line break, entities decoded once: `&amp;lt;` is the text `&lt;`), then cleaned and capped as every source's
 * evidence (sanitize.ts). Null when there is no such paragraph.
 */
export function postWords(html: string): string | null {
  let depth = 0; // blockquotes open, the post's own included
  let inParagraph = false;
  let raw = '';
  for (const t of tokens(html)) {
    if (depth === 0) {
      if (isTweetQuote(t)) depth = 1;
    } else if (!inParagraph) {
      if (t.kind !== 'text' && t.name === 'blockquote') depth += t.kind === 'start' ? 1 : -1;
      if (depth === 0) return null;
      inParagraph = t.kind === 'start' && t.name === 'p';
    } else if (t.kind === 'text') {
      raw += decodeEntities(t.text).replace(/[\t\n\f\r ]+/g, ' ');
      if (raw.length > MAX_RAW_TEXT_CHARS) break;
    } else if (t.name === 'br') raw += '\n';
    // The paragraph ends with `</p>`, another paragraph, or a quote opening or closing.
    else if (t.name === 'p' || t.name === 'blockquote') break;
  }
  return inParagraph ? tidy(cleanEvidence(tidy(raw.slice(0, MAX_RAW_TEXT_CHARS)), TEXT_LIMITS.evidence)) : null;
}
