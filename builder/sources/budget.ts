// Every source parse runs under a budget: a size cap, an item cap, a nesting cap and a time check. Exceeding one is
// a failed check with its own detail code, never a stalled or crashed build. The caps are listed (with the reasons)
// in docs/sources.md.
import type { z } from 'zod';
import type { Detail } from '../model/schemas.ts';

export interface ParseBudget {
  maxBytes: number; // largest body accepted, in bytes (the source's own cap, below the fetcher's transport cap)
  maxArrayItems: number; // longest array (or most keys of an object) accepted anywhere in a JSON body
  maxDepth: number; // deepest nesting accepted (JSON arrays/objects, XML elements)
  maxMs: number; // wall time the parse and validation may take, checked between steps and between XML chunks
}

const KiB = 1024;

/**
 * The JSON sources: a real summary.json is 10-100 KiB (pages with many components reach a few hundred), a page of
 * 100 tracker records about 50 KiB, the incident feed 4 KiB for 5 incidents.
 */
export const JSON_BUDGET: ParseBudget = { maxBytes: 1024 * KiB, maxArrayItems: 5_000, maxDepth: 16, maxMs: 1_000 };
/** Real feeds (a subreddit's newest 25-100 posts) are 50-500 KiB. */
export const FEED_BUDGET: ParseBudget = { ...JSON_BUDGET, maxDepth: 32 };

export function checkSize(body: string, budget: ParseBudget): Detail | null {
  // A UTF-8 body's string is never longer than its bytes, so the cheap length test rules most bodies in.
  if (body.length * 3 <= budget.maxBytes || Buffer.byteLength(body, 'utf8') <= budget.maxBytes) return null;
  return { code: 'body_too_large', params: { limit_kib: Math.floor(budget.maxBytes / KiB) } };
}

/**
 * Refuses JSON text that nests deeper than `maxDepth` or holds a container (array or object) of more than
 * `maxArrayItems` entries, in one pass over its brackets and commas (strings skipped), before JSON.parse: parsing a
 * million nested arrays, or an object of 180,000 keys, costs most of a second before any later check could refuse it.
 * It is a bound, not a parser: JSON.parse still decides whether the text is JSON.
 */
function checkJsonShape(text: string, budget: ParseBudget): Detail | null {
  // Entries so far of each open container, innermost last; never more than maxDepth of them.
  const entries: number[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (entries.length >= budget.maxDepth) return { code: 'too_deeply_nested', params: { max: budget.maxDepth } };
      entries.push(1);
    } else if (c === 0x5d || c === 0x7d) entries.pop();
    else if (c === 0x2c && entries.length > 0) {
      const n = entries.length - 1;
      if ((entries[n] = entries[n]! + 1) > budget.maxArrayItems)
        return { code: 'too_many_items', params: { max: budget.maxArrayItems } };
    }
  }
  return null;
}

/** Starts a budget's clock: the returned function gives the failed check's detail once `maxMs` has passed, else null. */
export function budgetClock(budget: ParseBudget): () => Detail | null {
  const started = performance.now();
  return () =>
    performance.now() - started > budget.maxMs ? { code: 'parse_time_exceeded', params: { ms: budget.maxMs } } : null;
}

/** `['components', 3, 'status']` → `components[3].status`, the form operators read in check details. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `${out === '' ? '' : '.'}${String(p)}`;
  return out === '' ? '(root)' : out;
}

export function schemaMismatch(error: z.ZodError, prefix: readonly PropertyKey[] = []): Detail {
  return { code: 'schema_mismatch', params: { path: formatIssuePath([...prefix, ...(error.issues[0]?.path ?? [])]) } };
}

/**
 * JSON text → a value of `schema` → what `map` makes of it, under `budget`: size, then shape (nesting, list lengths)
 * before `JSON.parse`, then the time check before validation and once more after the mapping.
 */
export function parseJsonWithin<S extends z.ZodType, R extends { ok: boolean }>(
  body: string,
  schema: S,
  map: (value: z.output<S>) => R,
  budget: ParseBudget = JSON_BUDGET,
): R | { ok: false; detail: Detail } {
  const over = budgetClock(budget);
  const problem = checkSize(body, budget) ?? checkJsonShape(body, budget);
  if (problem) return { ok: false, detail: problem };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ok: false, detail: { code: 'invalid_json', params: {} } };
  }
  const slow = over();
  if (slow) return { ok: false, detail: slow };
  const parsed = schema.safeParse(json);
  if (!parsed.success) return { ok: false, detail: schemaMismatch(parsed.error) };
  const mapped = map(parsed.data);
  const late = over();
  return late ? { ok: false, detail: late } : mapped;
}
