// Pure: the page's two inline SVG charts, each with a text alternative (a summary as its accessible name and a table
// with every value). Kinds of reset differ by lane, by shape and by colour; verified vs recorded by fill, and words.
import type { ComponentChildren } from 'preact';
import { EVENT_TYPES, type EventType } from '../contract.ts';
import { DAY_MS, eventTime } from '../model/events.ts';
import type { Event } from '../model/schemas.ts';
import type { AccuracyDoc, PageData } from './page-data.ts';
import { eventAnchor, FEED_MAX_ENTRIES, followedEvents } from './follow.ts';
import { formatDate, formatMonth, formatNumber, formatPercent } from './page-format.ts';
import { Head, StackRow, type Ctx } from './page-sections.tsx';
import { renderReach } from './reach.ts';

const TIMELINE_DAYS = 365;
/** The narrow screen's chart: the latest three months, whole, at a readable size (no sideways scrolling). */
const RECENT_DAYS = 92;
/** Rows in the timeline's table (the newest); this bounds the page's weight, /api/history has every event. */
const MAX_TIMELINE_ROWS = 60;

/** viewBox widths: the year at desktop width, the recent months at phone width (text stays about 12 px). */
const W_YEAR = 720;
const W_RECENT = 260;
const LEFT = 10;
const RIGHT = 10;
const LANE_Y: Record<EventType, number> = { global_reset: 28, banked_grant: 62, policy_change: 96 };

/** A mark of a kind's shape centred on (x, y): circle, square, triangle; `r` is the circle's radius. */
function Mark({ kind, x, y, r = 6, filled }: { kind: EventType; x: number; y: number; r?: number; filled?: true }) {
  // Inside a chart the group carries the class (marks inherit stroke and fill): a year of marks weighs less.
  const cls = filled ? 'm verified' : undefined;
  if (kind === 'global_reset') return <circle class={cls} cx={x} cy={y} r={r} />;
  const half = r - 0.5;
  if (kind === 'banked_grant') return <rect class={cls} x={x - half} y={y - half} width={2 * half} height={2 * half} />;
  return <path class={cls} d={`M${x} ${y - 7}L${x + 7} ${y + 5}L${x - 7} ${y + 5}Z`} />;
}

/** A legend entry: its icon (hidden from assistive technology: the words say it all) and its words. */
function LegendItem({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <li>
      <svg viewBox="0 0 16 16" aria-hidden="true" focusable="false">
        {children}
      </svg>{' '}
      {label}
    </li>
  );
}

function toPoint(e: Event) {
  const at = eventTime(e).at;
  return { e, at, ms: Date.parse(at.length === 10 ? `${at}T12:00:00Z` : at) };
}
type Point = ReturnType<typeof toPoint>;

/** The events of the `days` up to `asOf`, newest first. */
function timelineWindow(events: readonly Event[], asOf: Date, days: number) {
  const to = asOf.getTime();
  const from = to - days * DAY_MS;
  const points = events.map(toPoint).filter((p) => p.ms >= from && p.ms <= to);
  return { from, to, points: points.sort((a, b) => b.ms - a.ms) };
}
type Window = ReturnType<typeof timelineWindow>;

const nextMonth = (ms: number) => Date.UTC(new Date(ms).getUTCFullYear(), new Date(ms).getUTCMonth() + 1, 1);

function TimelineChart({ ctx, w, summary, id, W }: { ctx: Ctx; w: Window; summary: string; id: string; W: number }) {
  const { from, to, points } = w;
  const x = (ms: number) => Math.round((LEFT + ((ms - from) / (to - from)) * (W - LEFT - RIGHT)) * 10) / 10;
  const months: number[] = [];
  for (let m = nextMonth(from); m <= to; m = nextMonth(m)) months.push(m);
  return (
    <svg class={`timeline ${id}`} viewBox={`0 0 ${W} 130`} role="img" aria-labelledby={`${id}-title`}>
      <title id={`${id}-title`}>{summary}</title>
      {EVENT_TYPES.map((k) => (
        <line class="axis" x1={LEFT} x2={W - RIGHT} y1={LANE_Y[k]} y2={LANE_Y[k]} />
      ))}
      {months.map((m) => (
        <g>
          <line class="axis" x1={x(m)} x2={x(m)} y1={12} y2={108} />
          <text x={x(m) + 3} y={124}>
            {formatMonth(ctx.lang, new Date(m))}
          </text>
        </g>
      ))}
      {EVENT_TYPES.flatMap((k) =>
        (['verified', 'archived'] as const).map((status) => (
          <g class={`k-${k} m ${status}`}>
            {points
              .filter((p) => p.e.type === k && p.e.status === status)
              .map((p) => (
                <Mark kind={k} x={x(p.ms)} y={LANE_Y[k]} />
              ))}
          </g>
        )),
      )}
    </svg>
  );
}

function TimelineTable({ ctx, count, rows }: { ctx: Ctx; count: number; rows: readonly Point[] }) {
  const { lang, t } = ctx;
  return (
    <details>
      <summary>{`${t('page:timeline.list')} (${count})`}</summary>
      {/* On a phone each row reads as one line (date · kind · status): labelled stacking would triple a long list. */}
      <table class="list">
        <Head labels={(['date', 'kind', 'status', 'reach'] as const).map((k) => t(`page:timeline.${k}`))} />
        <tbody>
          {rows.map((p) => {
            const reach = renderReach(p.e, t);
            return (
              <tr id={eventAnchor(p.e.id)}>
                <td>
                  <time datetime={p.at}>{formatDate(lang, p.at)}</time>
                </td>
                <td>{t(`common:type.${p.e.type}`)}</td>
                <td>{t(`page:timeline.${p.e.status}`)}</td>
                {/* Whom it reached, as reviewed from its post, in one line. An unreviewed record's "not stated" is left
                    to the API, and its cell to the table (a trailing cell may be absent): a year of events stays under
                    PAGE_MAX_BYTES. */}
                {reach?.reviewed ? <td>{reach.summary}</td> : null}
              </tr>
            );
          })}
        </tbody>
      </table>
      {count > MAX_TIMELINE_ROWS ? (
        <p>
          <a href={`/api/history?lang=${lang}`}>{t('page:timeline.more', { count: count - MAX_TIMELINE_ROWS })}</a>
        </p>
      ) : null}
    </details>
  );
}

export function Timeline({ ctx, events }: { ctx: Ctx; events: readonly Event[] }) {
  const { lang, t, asOf } = ctx;
  const w = timelineWindow(events, asOf, TIMELINE_DAYS);
  const recent = timelineWindow(events, asOf, RECENT_DAYS);
  const summaryOf = ({ from, points }: Window) => {
    const n = (k: EventType, status?: string) =>
      points.filter((p) => p.e.type === k && (status === undefined || p.e.status === status)).length;
    return t('page:timeline.summary', {
      from: formatDate(lang, new Date(from).toISOString()),
      to: formatDate(lang, asOf.toISOString()),
      global: n('global_reset'),
      verified: n('global_reset', 'verified'),
      banked: n('banked_grant'),
      policy: n('policy_change'),
    });
  };
  const summary = summaryOf(w);
  // The table lists the newest events of the year, and every event the feeds and the calendar link to (their
  // anchors), however old: a link from a feed always lands on its row.
  const listed = [...w.points.slice(0, MAX_TIMELINE_ROWS), ...followedEvents(events, FEED_MAX_ENTRIES).map(toPoint)];
  const rows = [...new Map(listed.map((p) => [p.e.id, p])).values()].sort((a, b) => b.ms - a.ms);
  return (
    <section id="timeline" aria-labelledby="tl-h">
      <h2 id="tl-h">{t('page:timeline.heading')}</h2>
      <div class="charts">
        <TimelineChart ctx={ctx} w={recent} summary={summaryOf(recent)} id="tl-recent" W={W_RECENT} />
        <TimelineChart ctx={ctx} w={w} summary={summary} id="tl-year" W={W_YEAR} />
      </div>
      <p>{summary}</p>
      <ul class="legend" aria-label={t('page:timeline.legend')}>
        {EVENT_TYPES.map((k) => (
          <LegendItem label={t(`common:type.${k}`)}>
            <g class={`k-${k}`}>
              <Mark kind={k} x={8} y={8.5} filled={true} />
            </g>
          </LegendItem>
        ))}
      </ul>
      <p class="muted">{t('page:timeline.filled')}</p>
      {w.points.length === 0 ? (
        <p>{t('page:timeline.empty')}</p>
      ) : (
        <TimelineTable ctx={ctx} count={w.points.length} rows={rows} />
      )}
    </section>
  );
}

const BAR_W = 220;

type ReliabilityRow = AccuracyDoc['summary_24h'] & { label: string };

/** Horizontal bars: the forecast's Brier score solid, the base rate's hatched, each with its value written beside. */
function ReliabilityChart({ ctx, rows, summary }: { ctx: Ctx; rows: readonly ReliabilityRow[]; summary: string }) {
  const values = rows.flatMap((r) => [r.brier, r.climatology_brier]).filter((v): v is number => v !== null);
  const max = Math.max(0.25, ...values);
  const bar = (v: number | null, y: number, cls: string) =>
    v === null ? null : (
      <>
        <rect class={cls} x={100} y={y} width={Math.max(1, (v / max) * BAR_W)} height={14} />
        <text x={106 + (v / max) * BAR_W} y={y + 11}>
          {formatNumber(ctx.lang, v)}
        </text>
      </>
    );
  return (
    <svg viewBox="0 0 360 100" role="img" aria-labelledby="rel-title">
      <title id="rel-title">{summary}</title>
      <defs>
        <pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
          <path d="M0 0V6" />
        </pattern>
      </defs>
      {rows.map((r, i) => (
        <g>
          <text x={0} y={24 + i * 44}>
            {r.label}
          </text>
          {bar(r.brier, 10 + i * 44, 'bar-f')}
          {bar(r.climatology_brier, 28 + i * 44, 'bar-c')}
        </g>
      ))}
    </svg>
  );
}

export function Reliability({ ctx, data }: { ctx: Ctx; data: PageData }) {
  const { lang, t } = ctx;
  const a = data.accuracy;
  const rows = (['24', '48'] as const).map((h) => ({ label: t(`page:reliability.h${h}`), ...a[`summary_${h}h`] }));
  const scored = rows.some((r) => r.brier !== null || r.climatology_brier !== null);
  const heads = (['horizon', 'forecast', 'base_rate', 'scored'] as const).map((k) => t(`page:reliability.${k}`));
  const num = (v: number | null) => (v === null ? t('page:reliability.not_scored') : formatNumber(lang, v));
  const summary = rows
    .map((r) =>
      t('page:reliability.summary', {
        horizon: r.label,
        forecast: num(r.brier),
        base: num(r.climatology_brier),
        count: r.sample_size,
      }),
    )
    .join(' ');
  return (
    <section id="reliability" aria-labelledby="rel-h">
      <h2 id="rel-h">{t('page:reliability.heading')}</h2>
      <p>{t('page:reliability.intro', { days: a.window_days })}</p>
      {scored ? <ReliabilityChart ctx={ctx} rows={rows} summary={summary} /> : null}
      <ul class="legend">
        {(['bar-f', 'bar-c'] as const).map((cls, i) => (
          <LegendItem label={heads[i + 1]!}>
            <rect class={cls} x={1} y={3} width={14} height={10} />
          </LegendItem>
        ))}
      </ul>
      <table class="stack">
        <Head labels={heads} />
        <tbody>
          {rows.map((r) => (
            <StackRow
              heads={heads}
              cells={[r.label, num(r.brier), num(r.climatology_brier), formatNumber(lang, r.sample_size, 0)]}
            />
          ))}
        </tbody>
      </table>
      <Calibration ctx={ctx} accuracy={a} />
    </section>
  );
}

// The reliability diagram from /api/accuracy's binned checkpoints: forecast probability against how often a reset
// followed, one point per bin and horizon (24 h a circle, 48 h a square, in the colours of those timeline kinds), the
// diagonal for perfect calibration, and every value in a table beside it.
type Bin = AccuracyDoc['reliability_24h'][number];

const SIZE = 220;
const PAD = 48;
const END = 20;
const px = (p: number) => Math.round((PAD + p * (SIZE - PAD - END)) * 10) / 10;
const py = (p: number) => Math.round((SIZE - PAD - p * (SIZE - PAD - END)) * 10) / 10;

const isScored = (b: Bin): b is Bin & { mean_probability: number; observed_frequency: number } =>
  b.count > 0 && b.mean_probability !== null && b.observed_frequency !== null;

function Calibration({ ctx, accuracy }: { ctx: Ctx; accuracy: AccuracyDoc }) {
  const { lang, t } = ctx;
  const horizons = [
    { kind: 'global_reset', label: t('page:reliability.h24'), bins: accuracy.reliability_24h.filter(isScored) },
    { kind: 'banked_grant', label: t('page:reliability.h48'), bins: accuracy.reliability_48h.filter(isScored) },
  ] as const;
  if (horizons.every((h) => h.bins.length === 0)) return null;
  const pct = (p: number) => formatPercent(lang, p);
  const heads = ['horizon', 'range', 'predicted', 'observed', 'checkpoints'].map((k) => t(`page:reliability.${k}`));
  return (
    <>
      <p>{t('page:reliability.calibration')}</p>
      <svg class="calibration" viewBox={`0 0 ${SIZE} ${SIZE}`} role="img" aria-labelledby="cal-title">
        <title id="cal-title">{`${t('page:reliability.calibration')} ${t('page:reliability.diagonal')}.`}</title>
        <line class="axis" x1={px(0)} y1={py(0)} x2={px(1)} y2={py(0)} />
        <line class="axis" x1={px(0)} y1={py(0)} x2={px(0)} y2={py(1)} />
        <line class="diagonal" x1={px(0)} y1={py(0)} x2={px(1)} y2={py(1)} />
        {[0, 0.5, 1].map((v) => (
          <>
            <text x={px(v)} y={SIZE - PAD + 18} text-anchor="middle">
              {pct(v)}
            </text>
            <text x={PAD - 6} y={py(v) + 4} text-anchor="end">
              {pct(v)}
            </text>
          </>
        ))}
        {horizons.map((h) => (
          <g class={`k-${h.kind}`}>
            {h.bins.map((bin) => (
              <Mark kind={h.kind} x={px(bin.mean_probability)} y={py(bin.observed_frequency)} r={5} filled={true} />
            ))}
          </g>
        ))}
      </svg>
      <ul class="legend">
        {horizons.map((h) => (
          <LegendItem label={h.label}>
            <g class={`k-${h.kind}`}>
              <Mark kind={h.kind} x={8} y={8} r={5} filled={true} />
            </g>
          </LegendItem>
        ))}
        <li>{t('page:reliability.diagonal')}</li>
      </ul>
      <details>
        <summary>{t('page:reliability.bins')}</summary>
        <table class="stack">
          <Head labels={heads} />
          <tbody>
            {horizons.flatMap((h) =>
              h.bins.map((bin) => (
                <StackRow
                  heads={heads}
                  cells={[
                    h.label,
                    `${pct(bin.lower)}–${pct(bin.upper)}`,
                    pct(bin.mean_probability),
                    pct(bin.observed_frequency),
                    bin.count,
                  ]}
                />
              )),
            )}
          </tbody>
        </table>
      </details>
    </>
  );
}
