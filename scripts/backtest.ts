// Walk-forward backtest of the forecast models on the bundled history (data/), scored by ResetBench's rules.
// Deterministic: no clock, and the bootstrap is seeded; the same data prints the same report.
// Usage: npm run backtest [-- dataDir]
import { BOOTSTRAP, computeBacktest, type ScoreLine } from '../builder/model/backtest.ts';
import { mergeEvents } from '../builder/model/events.ts';
import { HAZARD_V3_PARAMS, type HazardParams } from '../builder/model/forecast.ts';
import { loadCuratedData } from '../builder/sources/archive.ts';

const dataDir = process.argv[2] ?? new URL('../data', import.meta.url).pathname;
const { events } = await loadCuratedData(dataDir);
const merged = mergeEvents(events);
const r = computeBacktest(merged);

const f = (x: number | null, digits = 4) => (x === null ? '-' : x.toFixed(digits));
const signed = (x: number | null, digits = 3) => (x === null ? '-' : `${x >= 0 ? '+' : ''}${x.toFixed(digits)}`);
const params = (p: HazardParams) => `half_life_days=${p.half_life_days} prior_days=${p.prior_days} bin_edges_days=[${p.bin_edges_days.join(',')}]`;
const out: string[] = [];
const say = (s = '') => out.push(s);

say('Backtest of 24h/48h global-reset forecasts');
say(`Scored by ${r.rules}.`);
say(`data: ${merged.length} merged events (${merged.filter((e) => e.type === 'global_reset').length} global resets), ${r.from} .. ${r.to}; windows closing after ${r.to} are unresolved and not scored`);
say(`checkpoints considered: ${r.checkpoints.considered}, skipped below the minimum sample: ${r.checkpoints.skipped_insufficient_data}`);
say();
say('Hyperparameters of hazard-v3 by rolling origin (each chosen on checkpoints resolved before its origin; objective: mean of the 24h and 48h Brier)');
for (const o of r.origins) say(`  origin ${o.origin}  rows=${String(o.rows).padStart(4)}  ${params(o.params)}`);
say(`  on all resolved history: ${params(r.selected)}`);
say(`  shipped in forecast.ts:  ${params(HAZARD_V3_PARAMS)} -> ${r.matches_production ? 'matches' : 'DOES NOT match'}`);
say();
say(`Evaluation ${r.evaluation.from} .. ${r.evaluation.to}: ${r.evaluation.rule}.`);
say(`Skill = 1 - Brier / baseline Brier; [95% moving-block bootstrap interval, blocks of ${BOOTSTRAP.blockLength} checkpoints (7 days), ${BOOTSTRAP.iterations} resamples, seed ${BOOTSTRAP.seed}]`);
say('Baselines: climatology (all history, the published base rate), trailing 30-day and 90-day climatology (share of the checkpoint windows closed in the last 30/90 days that held a reset)');
say();
const header = `  ${'model'.padEnd(44)} h     n   Brier   base rate Brier (all / 30d / 90d)   skill vs all                skill vs trailing 30d       skill vs trailing 90d`;
say(header);
const cell = (c: ScoreLine['versus'][number]) => `${signed(c.skill)} [${signed(c.lower)}, ${signed(c.upper)}]`.padEnd(28);
for (const l of r.lines) {
  const [all, t30, t90] = l.versus;
  say(`  ${l.name.padEnd(44)} ${l.horizon_hours}h ${String(l.forecasts).padStart(4)}  ${f(l.brier)}   ${f(all!.baseline_brier)} / ${f(t30!.baseline_brier)} / ${f(t90!.baseline_brier)}      ${cell(all!)}${cell(t30!)}${cell(t90!)}`);
}
say();
const prod = r.lines.filter((l) => l.name.includes('rolling-origin'));
for (const l of prod) {
  say(`Reliability, ${l.name}, ${l.horizon_hours}h (observed ${f(l.observed_frequency, 3)}, mean forecast ${f(l.mean_probability, 3)}):`);
  say('      bin          n   mean p   observed');
  for (const b of l.reliability) if (b.count > 0) say(`      [${b.lower.toFixed(1)},${b.upper.toFixed(1)})  ${String(b.count).padStart(4)}   ${f(b.mean_probability, 3)}    ${f(b.observed_frequency, 3)}`);
}
console.log(out.join('\n'));
