// Pure: the `unknown` variants of the present-tense documents. A static file cannot turn itself unknown, so each
// build also publishes, per language, what its latest and status documents must say once their answer no longer holds
// (past stale_after, or on another UTC date), and what its forecast must say once past the forecast's own stale_after;
// the edge router serves them then. Each variant is the document just rendered with its answer about the present
// replaced: the same meta and the same facts about the past (latest resets, checks, sample), and an explanation
// decided in the model from those very facts, read at the first instant the edge serves it.
import {
  BUILDS_STOPPED_VARIANT,
  UNKNOWN_VARIANT_ENDPOINTS,
  endpointKey,
  expiredForecastKey,
  unknownVariantKey,
  LANGS,
} from '../contract.ts';
import { expiredForecastExplanation } from '../model/forecast.ts';
import { computeExplanation } from '../model/status.ts';
import type { UnknownVariant } from '../model/freshness.ts';
import { jsonDoc } from './documents.ts';
import type { OutputDocument } from './output.ts';
import { translateDetail, translator } from './i18n.ts';
import type { PageData } from './page-data.ts';

/** The key segment of a variant: its date, or the dateless "builds stopped" one. */
export const variantSegment = (v: UnknownVariant): string => v.date ?? BUILDS_STOPPED_VARIANT;

export function renderUnknownVariants(
  docs: readonly OutputDocument[],
  variants: readonly UnknownVariant[],
): OutputDocument[] {
  const byKey = new Map(docs.map((d) => [d.key, d]));
  const read = (key: string) => {
    const d = byKey.get(key);
    if (d === undefined) throw new Error(`[render/unknown] ${key} was not rendered`);
    return d;
  };
  return LANGS.flatMap((lang) => {
    const t = translator(lang);
    // The facts come from the language's latest document (status has no last_source_check_at); both are this build's.
    const facts = JSON.parse(read(endpointKey(lang, 'latest')).body) as PageData['latest'];
    return UNKNOWN_VARIANT_ENDPOINTS.flatMap((endpoint) => {
      const live = read(endpointKey(lang, endpoint));
      const base = JSON.parse(live.body) as Record<string, unknown>;
      return variants.map((v) => {
        const why = computeExplanation({
          last_check_at: facts.last_source_check_at,
          last_good_check_at: facts.today.last_good_check_at,
          generated_at: facts.meta.generated_at,
          stale_after: facts.meta.stale_after,
          // The edge serves this variant from the later of its day's start and the build's stale_after.
          now: Date.parse(v.served_from) > Date.parse(facts.meta.stale_after) ? v.served_from : facts.meta.stale_after,
        });
        const today = {
          date: v.date,
          state: 'unknown',
          reset: null,
          event_ids: [],
          last_good_check_at: facts.today.last_good_check_at,
          valid_until: null,
          explanation: translateDetail(t, why),
        };
        // Whom today's reset reached is about the build's day: unknown too. The banked-reset warning restates the
        // announcement as this build read it; past its answer's time it is not repeated.
        const doc = { ...base, reset: null, today, today_reach: null, banked_reset_warning: null };
        return jsonDoc(endpoint, unknownVariantKey(lang, variantSegment(v), endpoint), lang, live.phase, doc);
      });
    });
  });
}

/**
 * The forecast once past its own stale_after, per language: every field that reads as "the next 24/48 hours" null
 * (the probabilities, the base rates, the announcement's effect on them, the tracker's watch), the facts about the
 * past kept (meta, issued_at, sample_size, last_global_reset_at, observed_until), and the explanation saying since
 * when it has expired and why. It names no date: one variant a language serves every instant after that.
 */
export function renderExpiredForecasts(docs: readonly OutputDocument[]): OutputDocument[] {
  return LANGS.map((lang) => {
    const key = endpointKey(lang, 'forecast');
    const live = docs.find((d) => d.key === key);
    if (live === undefined) throw new Error(`[render/unknown] ${key} was not rendered`);
    const base = JSON.parse(live.body) as PageData['forecast'];
    const why = expiredForecastExplanation(base.issued_at, base.meta.stale_after);
    return jsonDoc('forecast', expiredForecastKey(lang), lang, live.phase, {
      ...base,
      probability_24h: null,
      probability_48h: null,
      base_rate_24h: null,
      base_rate_48h: null,
      trailing_base_rate_30d_24h: null,
      trailing_base_rate_30d_48h: null,
      trailing_base_rate_90d_24h: null,
      trailing_base_rate_90d_48h: null,
      explanation: translateDetail(translator(lang), why, 'forecast'),
      announced: null,
      tracker_watch: null,
    });
  });
}
