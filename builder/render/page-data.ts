// Pure: what one language's page shows, read back from the API documents the same run rendered, so the page says
// exactly what `/api/latest?lang=…` and its siblings say (translations, nulls, `upcoming` once the API has it).
import { z } from 'zod';
import type { Lang } from '../model/schemas.ts';
import type { OutputDocument } from './output.ts';
import { DOCUMENT_SCHEMAS } from './schemas.ts';

/**
 * An announced reset as `/api/latest` (or `/api/status`) carries it in `upcoming`. Every field but `scheduled_for` is
 * optional and unknown fields pass: the page shows what is there and never breaks on a shape it does not know.
 */
export const UpcomingViewSchema = z
  .object({
    id: z.string().optional(),
    type: z.string().nullable().optional(),
    announced_at: z.string().nullable().optional(),
    scheduled_for: z.string().nullable().default(null),
    text: z.string().optional(),
    summary: z.string().optional(),
    source: z.object({ url: z.string().optional(), author: z.string().optional() }).loose().optional(),
    source_url: z.string().nullable().optional(),
  })
  .loose();
export type UpcomingView = z.infer<typeof UpcomingViewSchema>;

export type LatestDoc = z.infer<typeof DOCUMENT_SCHEMAS.latest>;
export type StatusDoc = z.infer<typeof DOCUMENT_SCHEMAS.status>;
export type ForecastDoc = z.infer<typeof DOCUMENT_SCHEMAS.forecast>;
export type AccuracyDoc = z.infer<typeof DOCUMENT_SCHEMAS.accuracy>;
export type SignalsDoc = z.infer<typeof DOCUMENT_SCHEMAS.signals>;
export type EventDoc = NonNullable<LatestDoc['latestReset']>;

export interface PageData {
  lang: Lang;
  latest: LatestDoc;
  status: StatusDoc;
  forecast: ForecastDoc;
  accuracy: AccuracyDoc;
  signals: SignalsDoc;
  /** `null`: none announced, or the API does not carry announcements. */
  upcoming: UpcomingView | null;
}

export type PageDocName = 'latest' | 'status' | 'forecast' | 'accuracy' | 'signals';
/** Where a language's document lies among the run's documents; another layout (an `unknown` variant) passes its own. */
export type DocKeyOf = (lang: Lang, name: PageDocName) => string;
export const apiDocKey: DocKeyOf = (lang, name) => `api/${lang}/${name}.json`;

function readDoc<N extends PageDocName>(
  byKey: ReadonlyMap<string, OutputDocument>,
  lang: Lang,
  name: N,
  keyOf: DocKeyOf,
): { doc: z.infer<(typeof DOCUMENT_SCHEMAS)[N]>; raw: Record<string, unknown> } {
  const key = keyOf(lang, name);
  const d = byKey.get(key);
  if (!d) throw new Error(`[render/page] the page needs ${key}, which this run did not render`);
  const raw = JSON.parse(d.body) as Record<string, unknown>;
  // renderApi validated this very document against its schema moments ago (strictly); parsing it again here would only
  // tie the page to the schema's exact key set. Fields the page reads beyond it (`upcoming`) are parsed on their own.
  return { doc: raw as z.infer<(typeof DOCUMENT_SCHEMAS)[N]>, raw };
}

function upcomingOf(raw: Record<string, unknown>): UpcomingView | null | undefined {
  if (!('upcoming' in raw)) return undefined;
  if (raw['upcoming'] === null) return null;
  const r = UpcomingViewSchema.safeParse(raw['upcoming']);
  return r.success ? r.data : null;
}

export function readPageData(
  byKey: ReadonlyMap<string, OutputDocument>,
  lang: Lang,
  keyOf: DocKeyOf = apiDocKey,
): PageData {
  const latest = readDoc(byKey, lang, 'latest', keyOf);
  const status = readDoc(byKey, lang, 'status', keyOf);
  return {
    lang,
    latest: latest.doc,
    status: status.doc,
    forecast: readDoc(byKey, lang, 'forecast', keyOf).doc,
    accuracy: readDoc(byKey, lang, 'accuracy', keyOf).doc,
    signals: readDoc(byKey, lang, 'signals', keyOf).doc,
    upcoming: upcomingOf(latest.raw) ?? upcomingOf(status.raw) ?? null,
  };
}
