// Pure: the human page, one static HTML document per language at `/<lang>/`, rendered from the API documents of the
// same run (so it says what the API says) and the events (for the timeline). JSX through preact-render-to-string
// escapes every interpolated value; the only raw HTML is the constant style sheet and script, both pinned by hash in
// the Content-Security-Policy below.
import type { TFunction } from 'i18next';
import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { CACHE_CONTROL, HTML_CONTENT_TYPE, pageKey } from '../contract.ts';
import { explanationKey } from '../model/explanation.ts';
import { LANGS, type Event, type Lang } from '../model/schemas.ts';
import { PHASE, type OutputDocument } from './output.ts';
import { translator } from './i18n.ts';
import { Reliability, Timeline } from './page-charts.tsx';
import { apiDocKey, readPageData, type DocKeyOf, type PageData } from './page-data.ts';
import { PAGE_SCRIPT } from './page-script.ts';
import { Checks, Forecast, Latest, Signals, Today, Upcoming, type Ctx } from './page-sections.tsx';
import { PAGE_CSP } from './page-csp.ts';
import { PAGE_CSS } from './page-style.ts';

export { PAGE_CSP };

/** Each language's name in that language, for the switcher. */
const LANG_NAMES: Record<Lang, string> = { en: 'English', de: 'Deutsch', ko: '한국어', ja: '日本語', zh: '中文' };

/** The budget of one language's page, before compression: small enough for a phone on a slow connection. */
export const PAGE_MAX_BYTES = 60 * 1024;

/** Every parameter an explanation template takes, left as `{{name}}` for the script to fill. */
const PLACEHOLDERS = { since: '{{since}}' };

/** What the inline script needs: the build's times and the strings it writes (placeholders left for it to fill). */
function scriptConfig(data: PageData, t: TFunction): string {
  const state = Object.fromEntries(
    (['confirmed_today', 'recorded_today', 'no_verified_reset', 'unknown'] as const).map((s) => [
      s,
      t(`page:state.${s}`),
    ]),
  );
  return JSON.stringify({
    lang: data.lang,
    generated_at: data.latest.meta.generated_at,
    stale_after: data.latest.meta.stale_after,
    last_check: data.latest.last_source_check_at,
    i18n: {
      state,
      checked: t('page:today.checked', { relative: '{{relative}}' }),
      never_checked: t('page:today.never_checked'),
      stale: t('page:today.stale', { time: '{{time}}' }),
      offline: t('page:today.offline', { time: '{{time}}' }),
      // Why unknown once the build's answer has expired (model/explanation.ts's `expired` case), placeholder left for the
      // script. Before that instant every other case is the one the build already rendered from the same facts.
      expired: t(`common:${explanationKey('expired')}`, PLACEHOLDERS),
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

/**
 * The sections that read only what every page of a language shares within a build: the events (the timeline), the
 * forecast, the accuracy and the signals, none of them a document an `unknown` variant replaces (contract.ts
 * UNKNOWN_VARIANT_ENDPOINTS: latest, status). A build renders each language's page six times (the page and its five
 * `unknown` variants): with a PageSections cache, each of these is rendered once and its HTML used in all six.
 */
const SHARED_SECTIONS = ['forecast', 'timeline', 'reliability', 'signals'] as const;
type SharedSection = (typeof SHARED_SECTIONS)[number];

/** Rendered shared sections of one build, by language and section, with what they were rendered from. */
export interface PageSections {
  html: Map<string, { asOf: number; doc: string | null; events: readonly Event[]; html: string }>;
}

type SectionDoc = 'forecast' | 'accuracy' | 'signals';
/** The document each shared section reads (the timeline reads the events), by its name among the page's documents. */
const SECTION_DOCS: Record<SharedSection, SectionDoc | null> = {
  forecast: 'forecast',
  timeline: null,
  reliability: 'accuracy',
  signals: 'signals',
};

/** The bodies of the documents the shared sections read: the same string objects for every page of a build. */
const sectionDocs = (
  byKey: ReadonlyMap<string, OutputDocument>,
  lang: Lang,
  keyOf: DocKeyOf,
): Record<SectionDoc, string> => ({
  forecast: byKey.get(keyOf(lang, 'forecast'))?.body ?? '',
  accuracy: byKey.get(keyOf(lang, 'accuracy'))?.body ?? '',
  signals: byKey.get(keyOf(lang, 'signals'))?.body ?? '',
});

export const createPageSections = (): PageSections => ({ html: new Map() });

/** Stands in for a shared section in the page's markup until its HTML replaces it (an element no page has). */
const slotTag = (name: SharedSection) => `<rsa-shared-section data-name="${name}"></rsa-shared-section>`;

function sharedSection(name: SharedSection, ctx: Ctx, data: PageData, events: readonly Event[]) {
  switch (name) {
    case 'forecast':
      return <Forecast ctx={ctx} data={data} />;
    case 'timeline':
      return <Timeline ctx={ctx} events={events} />;
    case 'reliability':
      return <Reliability ctx={ctx} data={data} />;
    case 'signals':
      return <Signals ctx={ctx} data={data} />;
  }
}

function Page({ ctx, data, events, slots }: { ctx: Ctx; data: PageData; events: readonly Event[]; slots: boolean }) {
  const { lang, t } = ctx;
  // A shared section, or the slot its HTML goes in (renderPage).
  const part = (name: SharedSection) =>
    slots ? h('rsa-shared-section', { 'data-name': name }) : sharedSection(name, ctx, data, events);
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
      <body id="page" data-page={scriptConfig(data, t)}>
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
          <Upcoming ctx={ctx} upcoming={data.upcoming} />
          {part('forecast')}
          <Latest ctx={ctx} data={data} />
          {part('timeline')}
          {part('reliability')}
          <Checks ctx={ctx} data={data} />
          {part('signals')}
          <Links ctx={ctx} />
        </main>
        <footer>
          <p>{t('page:footer')}</p>
          {data.latest.meta.credits.map((c) => (
            <p key={c.url}>
              {t('page:credit')} <a href={c.url}>{c.name}</a>
            </p>
          ))}
        </footer>
        <script dangerouslySetInnerHTML={{ __html: PAGE_SCRIPT }} />
      </body>
    </html>
  );
}

/**
 * The page's HTML. With `shared`, a shared section comes from `shared.sections` when it was rendered from the same
 * document body (`shared.docs`), events and time, and is put there otherwise; the HTML is the same either way
 * (test/render/page.test.ts).
 */
export function renderPage(
  data: PageData,
  events: readonly Event[],
  asOf: Date,
  shared?: { sections: PageSections; docs: Record<SectionDoc, string> },
): string {
  const ctx: Ctx = { lang: data.lang, t: translator(data.lang), asOf };
  if (shared === undefined)
    return `<!doctype html>${renderToString(<Page ctx={ctx} data={data} events={events} slots={false} />)}`;
  const html = renderToString(<Page ctx={ctx} data={data} events={events} slots={true} />);
  // The slots stand in the page in SHARED_SECTIONS' order: one pass puts each section's HTML in its place.
  const parts = ['<!doctype html>'];
  let from = 0;
  for (const name of SHARED_SECTIONS) {
    const docName = SECTION_DOCS[name];
    const doc = docName === null ? null : shared.docs[docName];
    const key = `${data.lang}:${name}`;
    let cached = shared.sections.html.get(key);
    if (cached === undefined || cached.asOf !== asOf.getTime() || cached.doc !== doc || cached.events !== events) {
      cached = { asOf: asOf.getTime(), doc, events, html: renderToString(sharedSection(name, ctx, data, events)) };
      shared.sections.html.set(key, cached);
    }
    const slot = slotTag(name);
    const at = html.indexOf(slot, from);
    if (at === -1) throw new Error(`[render/page] the page has no slot for its ${name} section`);
    parts.push(html.slice(from, at), cached.html);
    from = at + slot.length;
  }
  parts.push(html.slice(from));
  return parts.join('');
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
  /** Shared across a build's calls, the sections every page of a language has alike are rendered once (renderPage). */
  sections?: PageSections;
}): OutputDocument[] {
  const byKey = new Map(input.docs.map((d) => [d.key, d]));
  const keyOf = input.pageKeyOf ?? pageKey;
  const keyOfDoc = input.docKeyOf ?? apiDocKey;
  return LANGS.map((lang) => ({
    key: keyOf(lang),
    body: renderPage(
      readPageData(byKey, lang, keyOfDoc),
      input.events,
      input.asOf,
      input.sections ? { sections: input.sections, docs: sectionDocs(byKey, lang, keyOfDoc) } : undefined,
    ),
    contentType: HTML_CONTENT_TYPE,
    contentLanguage: lang,
    cacheControl: CACHE_CONTROL,
    phase: PHASE.summaries,
  }));
}
