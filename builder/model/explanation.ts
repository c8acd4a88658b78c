// Pure: why today's state is unknown, decided once from the facts every surface has (the build's documents, the edge's
// `unknown` variants, the page and its script's fallback), so they all say the same sentence. The page's inline script
// (render/page-script.ts) carries the same decision in plain JavaScript; test/browser/explanation.test.ts holds the
// two to the same sentences.
import { formatInstant } from '../contract.ts';
import type { Detail } from './schemas.ts';

/** The answer of a build that was already `unknown` is out of date once this passes without a newer one (two ticks). */
export const UNKNOWN_ANSWER_HOLDS_MS = 30 * 60 * 1000;

export type ExplanationCase = 'unchecked' | 'failed' | 'failed_since' | 'stale' | 'expired';

/** What a reader of the documents knows: the fields of `/api/latest` (and `/api/status`) and the reader's clock. */
export interface ExplanationFacts {
  /** `last_source_check_at`: the latest check of any source; null: never checked. */
  last_check_at: string | null;
  /** `today.last_good_check_at`: the latest successful reset-source check; null: none ever. */
  last_good_check_at: string | null;
  /** `meta.generated_at` of the answer being read. */
  generated_at: string;
  /** `meta.stale_after` of the answer being read; equal to generated_at when the build's answer was unknown already. */
  stale_after: string;
  /** When the answer is read (the build's asOf, the instant the edge starts serving a variant, the page's clock). */
  now: string;
}

/** The case and its template parameters, all ISO 8601 instants. */
export interface Explanation {
  case: ExplanationCase;
  params: Record<string, string>;
}

/**
 * The one decision. In order: the answer read is past its time and no newer one is here (`expired`, since when: the
 * build's stale_after, or 30 minutes after a build that was unknown already); no source was ever checked
 * (`unchecked`); checked, but no reset-source check ever succeeded (`failed`); checks ran after the last good one and
 * none succeeded (`failed_since` that one); nothing checked after the last good one, which is over 30 minutes old
 * (`stale`).
 */
export function computeExplanation(f: ExplanationFacts): Explanation {
  const generated = Date.parse(f.generated_at);
  const staleAfter = Date.parse(f.stale_after);
  const expiredAt = staleAfter > generated ? staleAfter : generated + UNKNOWN_ANSWER_HOLDS_MS;
  // The build's own stale_after as written (not re-serialized), so the sentence shows the instant meta shows.
  if (Date.parse(f.now) >= expiredAt)
    return { case: 'expired', params: { since: staleAfter > generated ? f.stale_after : formatInstant(expiredAt) } };
  if (f.last_check_at === null) return { case: 'unchecked', params: {} };
  if (f.last_good_check_at === null) return { case: 'failed', params: { checked: f.last_check_at } };
  if (Date.parse(f.last_check_at) > Date.parse(f.last_good_check_at)) {
    return { case: 'failed_since', params: { since: f.last_good_check_at, checked: f.last_check_at } };
  }
  return { case: 'stale', params: { last: f.last_good_check_at } };
}

/** The i18next key (common namespace) of each case. */
export function explanationKey(c: ExplanationCase): string {
  return `state.unknown_${c}`;
}

export function explanationDetail(e: Explanation): Detail {
  return { code: explanationKey(e.case), params: e.params };
}
