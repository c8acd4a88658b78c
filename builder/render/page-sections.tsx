// Pure: the page's sections as preact elements. Every value is interpolated through JSX, which escapes text and
// attributes by construction; upstream links pass safeHref (http: and https: only). The ids are the inline script's
// hooks (page-script.ts) and the browser tests'.
import type { TFunction } from 'i18next';
import type { ComponentChildren } from 'preact';
import type { Lang } from '../contract.ts';
import type { EventDoc, PageData } from './page-data.ts';
import { formatDate, formatPercent, formatRelative, formatUtc, safeHref } from './page-format.ts';

export type Ctx = { lang: Lang; t: TFunction; asOf: Date };

function Time({ lang, iso, id }: { lang: Lang; iso: string | null; id?: string }) {
  return (
    <time id={id} datetime={iso ?? undefined}>
      {iso === null ? null : formatUtc(lang, iso)}
    </time>
  );
}

/** A table's column headings (visually hidden where a narrow screen stacks the rows; each cell then names its column). */
export function Head({ labels }: { labels: readonly string[] }) {
  return (
    <thead>
      <tr>
        {labels.map((l) => (
          <th scope="col">{l}</th>
        ))}
      </tr>
    </thead>
  );
}

/** A row of a table that stacks on a narrow screen: the first cell heads the row, each cell names its column. */
export function StackRow(props: { heads: readonly string[]; cells: ComponentChildren[]; classes?: string[] }) {
  const { heads, cells, classes = [] } = props;
  return (
    <tr>
      {cells.map((cell, i) => {
        const Cell = i === 0 ? 'th' : 'td';
        return (
          <Cell scope={i === 0 ? 'row' : undefined} class={classes[i]} data-label={heads[i]}>
            {cell}
          </Cell>
        );
      })}
    </tr>
  );
}

export function Today({ ctx, data }: { ctx: Ctx; data: PageData }) {
  const { lang, t, asOf } = ctx;
  const { today, last_source_check_at: last, today_reach: reach } = data.latest;
  // Said when a post states something: a plan answered or a landing time (an unreviewed record's "not stated" is left to the API).
  const stated = reach !== null && (reach.note !== null || Object.values(reach.plans).some((a) => a !== 'not_stated'));
  const reachLine = !stated
    ? ''
    : [reach.summary, reach.note].filter((x): x is string => x !== null && x !== '').join(' · ');
  const warning = data.latest.banked_reset_warning?.note ?? '';
  return (
    <section id="today" aria-labelledby="today-h">
      <h2 id="today-h">
        {t('page:today.heading')} {today.date === null ? null : <small>{formatDate(lang, today.date)}</small>}
      </h2>
      <div aria-live="polite">
        <p id="state-box" class={`state state-${today.state}`}>
          <span id="state">{t(`page:state.${today.state}`)}</span>
        </p>
        <p id="explanation">{today.explanation}</p>
        {/* Whom today's resets reached and until when one lands (when a post states any of it); the announced or landing
            global reset next to banked resets. The script keeps both in step with the API, and empties them once stale. */}
        {reachLine === '' ? null : <p id="today-reach">{reachLine}</p>}
        {warning === '' ? null : <p id="banked-warning">{warning}</p>}
      </div>
      <p>
        <span id="checked-rel">
          {last === null
            ? t('page:today.never_checked')
            : t('page:today.checked', { relative: formatRelative(lang, last, asOf) })}
        </span>{' '}
        <Time lang={lang} iso={last} id="checked-at" />
      </p>
      <p class="muted">
        {t('page:today.as_of', { time: formatUtc(lang, data.latest.meta.generated_at) })} {t('page:today.live')}
      </p>
      <p id="fresh-note" role="status"></p>
    </section>
  );
}

export function Upcoming({ ctx, upcoming }: { ctx: Ctx; upcoming: PageData['latest']['upcoming'] }) {
  const { lang, t } = ctx;
  const when = upcoming?.scheduled_for ?? null;
  const href = safeHref(upcoming?.source?.url ?? upcoming?.source_url);
  return (
    <section id="upcoming" aria-labelledby="up-h" hidden={upcoming === null}>
      <h2 id="up-h">{t('page:upcoming.heading')}</h2>
      <dl>
        <dt>{t('page:upcoming.utc')}</dt>
        <dd class="big">
          {when === null ? (
            <time id="up-utc">{t('page:upcoming.no_time')}</time>
          ) : (
            <Time lang={lang} iso={when} id="up-utc" />
          )}
        </dd>
        <dt>{t('page:upcoming.local')}</dt>
        <dd id="up-local">—</dd>
      </dl>
      <p id="up-summary">{upcoming?.summary}</p>
      <blockquote id="up-text">{upcoming?.text}</blockquote>
      <p>
        <a id="up-link" {...(href === null ? { hidden: true } : { href })}>
          {t('page:upcoming.post')}
        </a>
      </p>
    </section>
  );
}

function Probability({ ctx, id, label, p }: { ctx: Ctx; id: string; label: string; p: number | null }) {
  return (
    <>
      <dt>{label}</dt>
      <dd id={id} class={p === null ? 'big none' : 'big'}>
        {p === null ? ctx.t('page:forecast.none') : formatPercent(ctx.lang, p)}
      </dd>
    </>
  );
}

export function Forecast({ ctx, data }: { ctx: Ctx; data: PageData }) {
  const { t } = ctx;
  const f = data.forecast;
  return (
    <section id="forecast" aria-labelledby="fc-h">
      <h2 id="fc-h">{t('page:forecast.heading')}</h2>
      <dl>
        <Probability ctx={ctx} id="p24" label={t('page:forecast.h24')} p={f.probability_24h} />
        <Probability ctx={ctx} id="p48" label={t('page:forecast.h48')} p={f.probability_48h} />
      </dl>
      <p id="fc-explanation">{f.explanation}</p>
      <p class="muted">
        <span id="fc-sample">{t('page:forecast.sample', { count: f.sample_size })}</span> ·{' '}
        <span>{t('page:forecast.model', { version: f.model_version })}</span>
      </p>
      <p>{t('page:forecast.caveat')}</p>
    </section>
  );
}

function ResetCard({ ctx, heading, e, id }: { ctx: Ctx; heading: string; e: EventDoc | null; id: string }) {
  const { lang, t } = ctx;
  return (
    <div id={id}>
      <h3>{heading}</h3>
      {e === null ? (
        <p>{t('page:latest.none')}</p>
      ) : (
        <>
          <p>
            <strong>
              <Time lang={lang} iso={e.occurred_at} />
            </strong>{' '}
            ·{' '}
            {e.status === 'verified'
              ? `\u2713 ${t('page:latest.verified_status')}`
              : `\u25CB ${t('page:latest.archived_status')}`}
          </p>
          <p>{e.title}</p>
          {e.reach?.reviewed ? <p class="reach">{e.reach.summary}</p> : null}
          <blockquote class="evidence">{e.evidence_text}</blockquote>
          <ul class="plain">
            {e.sources.map((s) => {
              const href = safeHref(s.url);
              return (
                <li>
                  {href === null ? s.platform : <a href={href}>{`${t('page:latest.post')}: ${s.platform}`}</a>}
                  {s.author === undefined ? null : (
                    <>
                      {' · '}
                      {t('page:latest.by')} <span class="author">{s.author}</span>
                    </>
                  )}
                </li>
              );
            })}
            <li>
              <a href={`/api/events/${encodeURIComponent(e.id)}?lang=${lang}`}>{t('page:latest.details')}</a>
            </li>
          </ul>
        </>
      )}
    </div>
  );
}

export function Latest({ ctx, data }: { ctx: Ctx; data: PageData }) {
  const { latestReset, latestVerifiedReset } = data.latest;
  return (
    <section id="latest" aria-labelledby="latest-h">
      <h2 id="latest-h">{ctx.t('page:latest.heading')}</h2>
      <ResetCard ctx={ctx} id="latest-recorded" heading={ctx.t('page:latest.recorded')} e={latestReset} />
      <ResetCard ctx={ctx} id="latest-verified" heading={ctx.t('page:latest.verified')} e={latestVerifiedReset} />
    </section>
  );
}

export function Checks({ ctx, data }: { ctx: Ctx; data: PageData }) {
  const { lang, t } = ctx;
  const { source_checks: checks, upstream_status: up } = data.status;
  const heads = (['source', 'result', 'time', 'detail'] as const).map((k) => t(`page:checks.${k}`));
  return (
    <section id="checks" aria-labelledby="checks-h">
      <h2 id="checks-h">{t('page:checks.heading')}</h2>
      {checks.length === 0 ? <p id="checks-none">{t('page:checks.none')}</p> : null}
      <table id="checks-table" class="stack" hidden={checks.length === 0}>
        <Head labels={heads} />
        <tbody id="checks-body">
          {checks.map((c) => (
            <StackRow
              heads={heads}
              cells={[
                c.source,
                c.ok ? `\u2713 ${t('page:checks.ok')}` : `\u2717 ${t('page:checks.failed')}`,
                <Time lang={lang} iso={c.checked_at} />,
                c.detail,
              ]}
              classes={['ident', c.ok ? 'ok' : 'bad']}
            />
          ))}
        </tbody>
      </table>
      {up === null ? null : (
        <>
          <h3>{t('page:checks.upstream')}</h3>
          <p>
            <q id="upstream-description">{up.description}</q> ({up.indicator}, <Time lang={lang} iso={up.fetched_at} />)
          </p>
          <ul class="plain">
            {up.components.slice(0, 12).map((c) => (
              <li>
                {c.name}: {c.status}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

const MAX_SIGNALS = 10;

export function Signals({ ctx, data }: { ctx: Ctx; data: PageData }) {
  const { lang, t } = ctx;
  const awaiting = data.signals.signals.filter((s) => s.review === 'awaiting_review');
  const shown = awaiting.slice(0, MAX_SIGNALS);
  const more = awaiting.length - shown.length;
  return (
    <section id="signals" aria-labelledby="signals-h">
      <h2 id="signals-h">{t('page:signals.heading')}</h2>
      <p class="muted">{t('page:signals.note')}</p>
      {shown.length === 0 ? (
        <p>{t('page:signals.none')}</p>
      ) : (
        <ul class="plain">
          {shown.map((s) => {
            const href = safeHref(s.url);
            // A link only to an http(s) URL; the title alone otherwise.
            const Title = href === null ? 'span' : 'a';
            return (
              <li>
                <Title class="signal-title" {...(href === null ? {} : { href })}>
                  {s.title}
                </Title>{' '}
                <small>
                  {s.source} · <Time lang={lang} iso={s.published_at ?? s.first_seen_at} />
                </small>
              </li>
            );
          })}
        </ul>
      )}
      {more > 0 ? <p>{t('page:signals.more', { count: more })}</p> : null}
    </section>
  );
}
