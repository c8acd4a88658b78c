// What rendering produces and every sink consumes: one file with its contract headers, and the order of publishing.
import { CACHE_CONTROL, JSON_CONTENT_TYPE } from '../contract.ts';

/** A rendered file. `phase` orders publishing: everything of a lower phase is in place before a higher one starts. */
export interface OutputDocument {
  key: string;
  body: string;
  contentType: string;
  /** `null` for language-independent documents (OpenAPI, schemas). */
  contentLanguage: string | null;
  cacheControl: string;
  phase: number;
}

/** Phases: event files and history first, then forecast/signals/accuracy, then the documents that point at them. */
export const PHASE = { leaves: 0, lists: 1, summaries: 2, schemas: 3 } as const;

/** A rendered file with the contract's Cache-Control (JSON unless `contentType` says otherwise). */
export const outputDoc = (
  key: string,
  body: string,
  contentLanguage: string | null,
  phase: number,
  contentType = JSON_CONTENT_TYPE,
): OutputDocument => ({ key, body, contentType, contentLanguage, cacheControl: CACHE_CONTROL, phase });

/**
 * The documents of `eager` (any order) and `lazy` (already in phase order, produced as they are consumed) as one
 * stream in phase order; each eager document goes before the first lazy one of a higher phase.
 */
export function* mergeInPhaseOrder(
  eager: readonly OutputDocument[],
  lazy: Iterable<OutputDocument>,
): Generator<OutputDocument> {
  const sorted = eager.slice().sort((a, b) => a.phase - b.phase);
  let i = 0;
  for (const d of lazy) {
    while (i < sorted.length && sorted[i]!.phase <= d.phase) yield sorted[i++]!;
    yield d;
  }
  while (i < sorted.length) yield sorted[i++]!;
}
