// Pure: the reliability diagram from /api/accuracy's binned checkpoints: forecast probability against how often a
// reset followed, one point per bin and horizon (24 h a circle, 48 h a square), the diagonal for perfect calibration,
// and every value in a table beside it.
import type { AccuracyDoc } from './page-data.ts';
import { formatPercent } from './page-format.ts';
import { Head, type Ctx } from './page-sections.tsx';

type Bin = AccuracyDoc['reliability_24h'][number];
const HORIZONS = ['h24', 'h48'] as const;
type Horizon = (typeof HORIZONS)[number];

const SIZE = 220;
const PAD = 48;
const END = 20;
const px = (p: number) => Math.round((PAD + p * (SIZE - PAD - END)) * 10) / 10;
const py = (p: number) => Math.round((SIZE - PAD - p * (SIZE - PAD - END)) * 10) / 10;

function Point({ h, x, y }: { h: Horizon; x: number; y: number }) {
  return h === 'h24' ? (
    <circle class="m verified" cx={x} cy={y} r={5} />
  ) : (
    <rect class="m verified" x={x - 4.5} y={y - 4.5} width={9} height={9} />
  );
}

const scored = (b: Bin): b is Bin & { mean_probability: number; observed_frequency: number } =>
  b.count > 0 && b.mean_probability !== null && b.observed_frequency !== null;

export function Calibration({ ctx, accuracy }: { ctx: Ctx; accuracy: AccuracyDoc }) {
  const { lang, t } = ctx;
  const bins = HORIZONS.map((h) => ({
    h,
    label: t(`page:reliability.${h}`),
    bins: accuracy[h === 'h24' ? 'reliability_24h' : 'reliability_48h'].filter(scored),
  }));
  if (bins.every((b) => b.bins.length === 0)) return null;
  const pct = (p: number) => formatPercent(lang, p);
  const heads = (['horizon', 'range', 'predicted', 'observed', 'checkpoints'] as const).map((k) =>
    t(`page:reliability.${k}`),
  );
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
        {bins.map((b) => (
          <g class={b.h === 'h24' ? 'k-global_reset' : 'k-banked_grant'}>
            {b.bins.map((bin) => (
              <Point h={b.h} x={px(bin.mean_probability)} y={py(bin.observed_frequency)} />
            ))}
          </g>
        ))}
      </svg>
      <ul class="legend">
        {bins.map((b) => (
          <li>
            <svg viewBox="0 0 16 16" aria-hidden="true" focusable="false">
              <g class={b.h === 'h24' ? 'k-global_reset' : 'k-banked_grant'}>
                <Point h={b.h} x={8} y={8} />
              </g>
            </svg>{' '}
            {b.label}
          </li>
        ))}
        <li>{t('page:reliability.diagonal')}</li>
      </ul>
      <details>
        <summary>{t('page:reliability.bins')}</summary>
        <table class="stack">
          <Head labels={heads} />
          <tbody>
            {bins.flatMap((b) =>
              b.bins.map((bin) => (
                <tr>
                  <th scope="row" data-label={heads[0]}>
                    {b.label}
                  </th>
                  <td data-label={heads[1]}>{`${pct(bin.lower)}–${pct(bin.upper)}`}</td>
                  <td data-label={heads[2]}>{pct(bin.mean_probability)}</td>
                  <td data-label={heads[3]}>{pct(bin.observed_frequency)}</td>
                  <td data-label={heads[4]}>{bin.count}</td>
                </tr>
              )),
            )}
          </tbody>
        </table>
      </details>
    </>
  );
}
