// Pure: what one language's page shows, read back from the API documents the same run rendered, so the page says
// exactly what `/api/latest?lang=…` and its siblings say (translations, nulls, `upcoming`).
import type { z } from 'zod';
import { endpointKey, type Lang } from '../contract.ts';
import type { OutputDocument } from './output.ts';
import { DOCUMENT_SCHEMAS } from './schemas.ts';

type Doc<N extends PageDocName> = z.infer<(typeof DOCUMENT_SCHEMAS)[N]>;
export type AccuracyDoc = Doc<'accuracy'>;
export type EventDoc = NonNullable<Doc<'latest'>['latestReset']>;

const PAGE_DOCS = ['latest', 'status', 'forecast', 'accuracy', 'signals'] as const;
export type PageDocName = (typeof PAGE_DOCS)[number];
export type PageData = { [N in PageDocName]: Doc<N> };
/** Where a language's document lies among the run's documents; another layout (an `unknown` variant) passes its own. */
export type DocKeyOf = (lang: Lang, name: PageDocName) => string;
export const apiDocKey: DocKeyOf = endpointKey;

export function readPageData(byKey: ReadonlyMap<string, OutputDocument>, lang: Lang, keyOf: DocKeyOf): PageData {
  // renderApi validated each of these documents against its schema moments ago: it is only parsed here.
  const read = (name: PageDocName): unknown => {
    const key = keyOf(lang, name);
    const d = byKey.get(key);
    if (!d) throw new Error(`[render/page] the page needs ${key}, which this run did not render`);
    return JSON.parse(d.body);
  };
  return Object.fromEntries(PAGE_DOCS.map((name) => [name, read(name)])) as PageData;
}
