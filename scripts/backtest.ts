// Walk-forward backtest of the forecast models on the bundled history (data/). Deterministic: no clock, no
// randomness; the same data prints the same report. Usage: npm run backtest [-- dataDir]
import { mergeEvents } from '../builder/model/events.ts';
import { computeBacktest, type HorizonScores, type Score } from '../builder/model/backtest.ts';
import { HAZARD_V2_PARAMS, type HazardParams } from '../builder/model/forecast.ts';
import { loadCuratedData } from '../builder/sources/archive.ts';

const dataDir = process.argv[2] ?? new URL('../data', import.meta.url).pathname;
const { events } = await loadCuratedData(dataDir);
const merged = mergeEvents(events);
const result = computeBacktest(merged);

const f = (x: number | null, digits = 4) => (x === null ? '-' : x.toFixed(digits));
const signed = (x: number | null, digits = 4) => (x === null ? '-' : `${x >= 0 ? '+' : ''}${x.toFixed(digits)}`);
const params = (p: HazardParams) =>
  `half_life_days=${p.half_life_days} prior_days=${p.prior_days} bin_edges_days=[${p.bin_edges_days.join(',')}] incident_window_days=${p.incident_window_days}`;

const lines: string[] = [];
const out = (s = '') => lines.push(s);

out(`Backtest of 24h/48h global-reset forecasts, checkpoints 00/06/12/18 UTC`);
out(`data: ${merged.length} merged events (${merged.filter((e) => e.type === 'global_reset').length} global resets), ${result.from} .. ${result.to}`);
out(`checkpoints considered: ${result.checkpoints.considered}, skipped below the minimum sample: ${result.checkpoints.skipped_insufficient_data}`);
out();
out(`Split (cutoff ${result.split.cutoff})`);
out(`  ${result.split.rule}`);
const s = result.split;
out(`  train: ${s.train.first_checkpoint} .. ${s.train.last_checkpoint}  forecasts 24h=${s.train.forecasts_24h} 48h=${s.train.forecasts_48h}`);
out(`  test:  ${s.test.first_checkpoint} .. ${s.test.last_checkpoint}  forecasts 24h=${s.test.forecasts_24h} 48h=${s.test.forecasts_48h}`);
out(`  straddling the cutoff (excluded): 24h=${result.checkpoints.straddling_cutoff_24h} 48h=${result.checkpoints.straddling_cutoff_48h}`);
out();

if (result.tuning !== null) {
  const t = result.tuning;
  out(`Tuning of hazard-v2 on train only (${t.grid_size} grid points, objective: ${t.objective})`);
  for (const [i, row] of t.top.entries()) {
    out(`  ${i + 1}. ${params(row.params)}  brier24=${f(row.train_brier_24h)} brier48=${f(row.train_brier_48h)} objective=${f(row.objective, 5)}`);
  }
  out(`  shipped in forecast.ts: ${params(HAZARD_V2_PARAMS)} -> ${t.matches_production ? 'matches the train argmin' : 'DOES NOT match the train argmin'}`);
  out();
}

const scoreLine = (h: string, sc: Score) =>
  `  ${h.padEnd(4)} n=${String(sc.forecasts).padStart(4)}  brier=${f(sc.brier)}  climatology=${f(sc.climatology_brier)}  BSS=${signed(sc.skill)}  ` +
  `improvement=${signed(sc.improvement)} ± ${f(sc.improvement_se)} (block SE)  mean base rate=${f(sc.base_rate_mean, 3)}  observed=${f(sc.observed_frequency, 3)}`;

const reliability = (sc: Score) => {
  out(`      bin         n   mean p   observed`);
  for (const b of sc.reliability) {
    if (b.count === 0) continue;
    out(`      [${b.lower.toFixed(1)},${b.upper.toFixed(1)})  ${String(b.count).padStart(4)}   ${f(b.mean_predicted, 3)}    ${f(b.observed_frequency, 3)}`);
  }
};

for (const m of result.models) {
  out(`Model ${m.model_version}${m.production ? ' (production)' : ' (baseline)'}${m.params === null ? '' : `: ${params(m.params)}`}`);
  for (const split of ['train', 'test'] as const) {
    const scores: HorizonScores = m[split];
    out(` ${split === 'train' ? 'train (in-sample for tuning)' : 'test (held out)'}`);
    out(scoreLine('24h', scores.h24));
    out(scoreLine('48h', scores.h48));
  }
  out(` reliability, test 24h:`);
  reliability(m.test.h24);
  out(` reliability, test 48h:`);
  reliability(m.test.h48);
  out();
}

console.log(lines.join('\n'));
