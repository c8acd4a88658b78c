// Pure: the `unknown` variants of the present-tense documents. A static file cannot turn itself unknown, so each
// build also publishes, per language, what its latest and status documents must say once their answer no longer holds
// (past stale_after, or on another UTC date); the edge router serves them then. Each variant is the document just
// rendered with today's state replaced: the same meta and the same facts about the past (latest resets, checks).
import { UNKNOWN_VARIANT_ENDPOINTS, unknownVariantKey } from '../contract.ts';
import { LANGS } from '../model/schemas.ts';
import type { TodayStatus } from '../model/status.ts';
import type { OutputDocument } from './output.ts';
import { translateDetail, translator } from './i18n.ts';
import { DOCUMENT_SCHEMAS } from './schemas.ts';

export function renderUnknownVariants(docs: readonly OutputDocument[], todays: readonly TodayStatus[]): OutputDocument[] {
  const byKey = new Map(docs.map((d) => [d.key, d]));
  const out: OutputDocument[] = [];
  for (const lang of LANGS) {
    const t = translator(lang);
    for (const endpoint of UNKNOWN_VARIANT_ENDPOINTS) {
      const live = byKey.get(`api/${lang}/${endpoint}.json`);
      if (live === undefined) throw new Error(`[render/unknown] api/${lang}/${endpoint}.json was not rendered`);
      const base = JSON.parse(live.body) as Record<string, unknown>;
      for (const today of todays) {
        const key = unknownVariantKey(lang, today.date, endpoint);
        const doc = { ...base, reset: null, today: { ...today, event_ids: [], explanation: translateDetail(t, today.explanation) } };
        const r = DOCUMENT_SCHEMAS[endpoint].safeParse(doc);
        if (!r.success) throw new Error(`[render/unknown] ${key} does not match the ${endpoint} schema: ${r.error.issues[0]?.message ?? ''}`);
        out.push({ ...live, key, body: JSON.stringify(doc) });
      }
    }
  }
  return out;
}
