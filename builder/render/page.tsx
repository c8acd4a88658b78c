// Pure: the human page, one static HTML document per language at `/<lang>/`, rendered from the API documents of the
// same run (so it says what the API says) and the events (for the timeline). JSX through preact-render-to-string
// escapes every interpolated value; the only raw HTML is the constant style sheet and script, both pinned by hash in
// the Content-Security-Policy below.
import { renderToString } from 'preact-render-to-string';
import { HTML_CONTENT_TYPE, pageKey, LANGS, type Lang } from '../contract.ts';
import type { Event } from '../model/schemas.ts';
import { explanationKey, TODAY_STATES } from '../model/status.ts';
import { outputDoc, PHASE, type OutputDocument } from './output.ts';
import { translator } from './i18n.ts';
import { Reliability, Timeline } from './page-charts.tsx';
import { apiDocKey, readPageData, type DocKeyOf, type PageData } from './page-data.ts';
import { PAGE_SCRIPT } from './page-script.ts';
import { Checks, Forecast, Latest, Signals, Today, Upcoming, type Ctx } from './page-sections.tsx';
import { PAGE_CSP } from './page-csp.ts';
import { PAGE_CSS } from './page-style.ts';

/** Each language's name in that language, for the switcher. */
const LANG_NAMES: Record<Lang, string> = { en: 'English', de: 'Deutsch', ko: '한국어', ja: '日本語', zh: '中文' };

/** The budget of one language's page, before compression: small enough for a phone on a slow connection. */
export const PAGE_MAX_BYTES = 60 * 1024;

/**
 * JSON for the `data-page` attribute with its double quotes swapped for single ones (a single quote in it escaped
 * first, so every one is a swapped double quote): an attribute writes each double quote as `&quot;`, six bytes for
 * one, hundreds of bytes of the page's budget. The script swaps them back before parsing.
 */
const attributeJson = (value: unknown): string => JSON.stringify(value).replace(/'/g, '\\u0027').replace(/"/g, "'");

/** What the inline script needs: the build's times and the strings it writes (placeholders left for it to fill). */
function scriptConfig({ lang, t }: Ctx, data: PageData): string {
  return attributeJson({
    lang,
    generated_at: data.latest.meta.generated_at,
    stale_after: data.latest.meta.stale_after,
    last_check: data.latest.last_source_check_at,
    forecast_stale_after: data.forecast.meta.stale_after,
    i18n: {
      state: Object.fromEntries(TODAY_STATES.map((s) => [s, t(`page:state.${s}`)])),
      checked: t('page:today.checked', { relative: '{{relative}}' }),
      never_checked: t('page:today.never_checked'),
      stale: t('page:today.stale', { time: '{{time}}' }),
      offline: t('page:today.offline', { time: '{{time}}' }),
      // Why unknown once the build's answer has expired (model/status.ts's `expired` case), placeholder left for the
      // script. Before that instant every other case is the one the build already rendered from the same facts.
      expired: t(`common:${explanationKey('expired')}`, { since: '{{since}}' }),
      none: t('page:forecast.none'),
      no_time: t('page:upcoming.no_time'),
      ok: t('page:checks.ok'),
      failed: t('page:checks.failed'),
    },
  });
}

function Links({ ctx }: { ctx: Ctx }) {
  const { lang, t } = ctx;
  const q = `?lang=${lang}`;
  const links: [string, string][] = [
    ['/api', t('page:links.api')],
    [`/api/latest${q}`, t('page:links.latest')],
    ['/api/openapi.json', t('page:links.openapi')],
    [`/api/feed.atom${q}`, t('page:links.atom')],
    [`/api/feed.json${q}`, t('page:links.jsonfeed')],
    [`/api/calendar.ics${q}`, t('page:links.calendar')],
    [`/api/badge.svg${q}`, t('page:links.badge')],
  ];
  return (
    <section id="links" aria-labelledby="links-h">
      <h2 id="links-h">{t('page:links.heading')}</h2>
      <ul class="plain">
        {links.map(([href, label]) => (
          <li>
            <a href={href}>{label}</a> <code>{href}</code>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Page({ ctx, data, events }: { ctx: Ctx; data: PageData; events: readonly Event[] }) {
  const { lang, t } = ctx;
  return (
    <html lang={lang}>
      <head>
        <meta charset="utf-8" />
        <meta http-equiv="Content-Security-Policy" content={PAGE_CSP} />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>{t('page:title')}</title>
        <meta name="description" content={t('page:tagline')} />
        <link rel="icon" href="data:," />
        <link rel="canonical" href={`/${lang}/`} />
        {LANGS.map((l) => (
          <link rel="alternate" hreflang={l} href={`/${l}/`} />
        ))}
        <link rel="alternate" hreflang="x-default" href="/en/" />
        <link
          rel="alternate"
          type="application/atom+xml"
          href={`/api/feed.atom?lang=${lang}`}
          title={t('page:links.atom')}
        />
        <style dangerouslySetInnerHTML={{ __html: PAGE_CSS }} />
      </head>
      <body id="page" data-page={scriptConfig(ctx, data)}>
        <a class="skip" href="#today">
          {t('page:skip')}
        </a>
        <header>
          <h1>{t('page:title')}</h1>
          <p class="tagline">{t('page:tagline')}</p>
          <nav aria-label={t('page:languages')}>
            <ul>
              {LANGS.map((l) => (
                <li>
                  <a href={`/${l}/`} hreflang={l} lang={l} aria-current={l === lang ? 'page' : undefined}>
                    {LANG_NAMES[l]}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        </header>
        <main>
          <Today ctx={ctx} data={data} />
          <Upcoming ctx={ctx} upcoming={data.latest.upcoming} />
          <Forecast ctx={ctx} data={data} />
          <Latest ctx={ctx} data={data} />
          <Timeline ctx={ctx} events={events} />
          <Reliability ctx={ctx} data={data} />
          <Checks ctx={ctx} data={data} />
          <Signals ctx={ctx} data={data} />
          <Links ctx={ctx} />
        </main>
        <footer>
          <p>{t('page:footer')}</p>
          {data.latest.meta.credits.map((c) => (
            <p key={c.url}>
              <a href={c.url}>{c.notice}</a>
            </p>
          ))}
        </footer>
        <script dangerouslySetInnerHTML={{ __html: PAGE_SCRIPT }} />
      </body>
    </html>
  );
}

/**
 * One page per language, from the documents `renderApi` produced in this run. Published after the documents it
 * fetches (phase summaries), with the contract's headers. The page is a live document: a variant of the present-tense
 * documents (the edge's `unknown` ones) gets its page by passing where those lie and where its page goes.
 */
export function renderPages(input: {
  asOf: Date;
  docs: readonly OutputDocument[];
  events: readonly Event[];
  docKeyOf?: DocKeyOf;
  pageKeyOf?: (lang: Lang) => string;
}): OutputDocument[] {
  const { asOf, events, docKeyOf = apiDocKey, pageKeyOf = pageKey } = input;
  const byKey = new Map(input.docs.map((d) => [d.key, d]));
  return LANGS.map((lang) => {
    const ctx: Ctx = { lang, t: translator(lang), asOf };
    const html = renderToString(<Page ctx={ctx} data={readPageData(byKey, lang, docKeyOf)} events={events} />);
    return outputDoc(pageKeyOf(lang), `<!doctype html>${html}`, lang, PHASE.summaries, HTML_CONTENT_TYPE);
  });
}
