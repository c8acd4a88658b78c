// i18next resources for every language, loaded statically so rendering stays pure (no fs).
import i18next, { type TFunction } from 'i18next';
import deChecks from '../../locales/de/checks.json' with { type: 'json' };
import deCommon from '../../locales/de/common.json' with { type: 'json' };
import deErrors from '../../locales/de/errors.json' with { type: 'json' };
import deForecast from '../../locales/de/forecast.json' with { type: 'json' };
import dePage from '../../locales/de/page.json' with { type: 'json' };
import deFollow from '../../locales/de/follow.json' with { type: 'json' };
import enChecks from '../../locales/en/checks.json' with { type: 'json' };
import enCommon from '../../locales/en/common.json' with { type: 'json' };
import enErrors from '../../locales/en/errors.json' with { type: 'json' };
import enForecast from '../../locales/en/forecast.json' with { type: 'json' };
import enPage from '../../locales/en/page.json' with { type: 'json' };
import enFollow from '../../locales/en/follow.json' with { type: 'json' };
import jaChecks from '../../locales/ja/checks.json' with { type: 'json' };
import jaCommon from '../../locales/ja/common.json' with { type: 'json' };
import jaErrors from '../../locales/ja/errors.json' with { type: 'json' };
import jaForecast from '../../locales/ja/forecast.json' with { type: 'json' };
import jaPage from '../../locales/ja/page.json' with { type: 'json' };
import jaFollow from '../../locales/ja/follow.json' with { type: 'json' };
import koChecks from '../../locales/ko/checks.json' with { type: 'json' };
import koCommon from '../../locales/ko/common.json' with { type: 'json' };
import koErrors from '../../locales/ko/errors.json' with { type: 'json' };
import koForecast from '../../locales/ko/forecast.json' with { type: 'json' };
import koPage from '../../locales/ko/page.json' with { type: 'json' };
import koFollow from '../../locales/ko/follow.json' with { type: 'json' };
import zhChecks from '../../locales/zh/checks.json' with { type: 'json' };
import zhCommon from '../../locales/zh/common.json' with { type: 'json' };
import zhErrors from '../../locales/zh/errors.json' with { type: 'json' };
import zhForecast from '../../locales/zh/forecast.json' with { type: 'json' };
import zhPage from '../../locales/zh/page.json' with { type: 'json' };
import zhFollow from '../../locales/zh/follow.json' with { type: 'json' };
import { LANGS, type Lang } from '../contract.ts';
import type { Detail } from '../model/schemas.ts';
import { instantToSeconds } from './values.ts';

export const NAMESPACES = ['common', 'errors', 'checks', 'forecast', 'page', 'follow'] as const;
export type Namespace = (typeof NAMESPACES)[number];

export const RESOURCES: Record<Lang, Record<Namespace, object>> = {
  en: { common: enCommon, errors: enErrors, checks: enChecks, forecast: enForecast, page: enPage, follow: enFollow },
  de: { common: deCommon, errors: deErrors, checks: deChecks, forecast: deForecast, page: dePage, follow: deFollow },
  ko: { common: koCommon, errors: koErrors, checks: koChecks, forecast: koForecast, page: koPage, follow: koFollow },
  ja: { common: jaCommon, errors: jaErrors, checks: jaChecks, forecast: jaForecast, page: jaPage, follow: jaFollow },
  zh: { common: zhCommon, errors: zhErrors, checks: zhChecks, forecast: zhForecast, page: zhPage, follow: zhFollow },
};

const instance = i18next.createInstance();
void instance.init({
  resources: RESOURCES,
  lng: 'en',
  supportedLngs: [...LANGS],
  // A missing key must show up as the key itself in tests, not silently as English.
  fallbackLng: false,
  ns: [...NAMESPACES],
  defaultNS: 'common',
  initAsync: false,
  interpolation: { escapeValue: false },
});

export const translator = (lang: Lang): TFunction => instance.getFixedT(lang);

/** Translates a Detail whose code is `ns:key` or a key of the common namespace. */
export function translateDetail(t: TFunction, d: Detail, ns: Namespace = 'common'): string {
  const key = d.code.includes(':') ? d.code : `${ns}:${d.code}`;
  // A time in a sentence reads as the API writes times everywhere: to the second.
  const toSeconds = (v: Detail['params'][string]) => (typeof v === 'string' ? instantToSeconds(v) : v);
  return t(key, Object.fromEntries(Object.entries(d.params).map(([k, v]) => [k, toSeconds(v)])));
}
