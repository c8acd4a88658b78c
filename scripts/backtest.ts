// Walk-forward backtest of the forecast models on the bundled history (data/), scored by ResetBench's rules.
// Deterministic: no clock, and the bootstrap is seeded; the same data prints the same report.
// Usage: npm run backtest [-- dataDir]
import { BOOTSTRAP, MIN_ANNOUNCEMENT_ROWS, computeBacktest, type ScoreLine } from '../builder/model/backtest.ts';
import { mergeEvents } from '../builder/model/events.ts';
import { HAZARD_V3_PARAMS, MODEL_VERSIONS, PRODUCTION_MODEL, type HazardParams } from '../builder/model/forecast.ts';
import { loadCuratedData } from '../builder/sources/archive.ts';

const dataDir = process.argv[2] ?? new URL('../data', import.meta.url).pathname;
const { events, announcements } = await loadCuratedData(dataDir);
const merged = mergeEvents(events);
const r = computeBacktest(merged, { announcementReview: announcements ?? [] });

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
say('Model selection by rolling origin: at each origin every candidate is scored on the checkpoints resolved before it');
say('(objective: mean of the 24h and 48h Brier, on the same rows: each candidate forecast them out of sample, hazard-v3 with the grid point chosen at the start of their month); the winner forecasts the next month.');
say(`  ${'origin'.padEnd(21)} ${'rows'.padStart(4)}  ${MODEL_VERSIONS.map((m) => m.padStart(15)).join(' ')}  winner           hazard-v3 grid point`);
for (const o of r.origins) say(`  ${o.origin}  ${String(o.rows).padStart(4)}  ${MODEL_VERSIONS.map((m) => f(o.scores[m]).padStart(15)).join(' ')}  ${o.winner.padEnd(15)}  ${params(o.params)}`);
say(`  winner at the latest origin: ${r.shipped}; shipped in forecast.ts (PRODUCTION_MODEL): ${PRODUCTION_MODEL}`);
say(`  hazard-v3 grid point on all resolved history: ${params(r.selected)}; HAZARD_V3_PARAMS: ${params(HAZARD_V3_PARAMS)}`);
say(`  -> ${r.matches_production ? 'matches' : 'DOES NOT match'}`);
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
const shippedLine = (h: number) => r.lines.find((l) => l.name.startsWith(r.shipped) || (r.shipped === 'hazard-v3' && l.name.startsWith('hazard-v3, rolling-origin')) ? l.horizon_hours === h : false);
for (const h of [24, 48]) {
  const l = shippedLine(h);
  const c = l?.versus.find((v) => v.baseline === 'trailing_90d');
  if (l !== undefined && c !== undefined) say(`Shipped model ${r.shipped}, ${h}h, out of sample: Brier ${f(l.brier)}, skill vs trailing 90-day climatology ${signed(c.skill)} [${signed(c.lower)}, ${signed(c.upper)}] (n=${l.forecasts})`);
}
say();
const a = r.announcements;
say(`Announcement checkpoints (an 'ahead' post pending and due inside the horizon; data/announcement-review.json): n=${a.n} rows from posts ${a.posts.join(', ') || '-'}`);
if (!a.enough) say(`  n=${a.n} is below ${MIN_ANNOUNCEMENT_ROWS}: too few to claim anything about the announcement term; shown for completeness.`);
for (const l of a.lines) say(`  ${l.name.padEnd(44)} ${l.horizon_hours}h ${String(l.forecasts).padStart(4)}  Brier ${f(l.brier)}  observed ${f(l.observed_frequency, 3)}  mean p ${f(l.mean_probability, 3)}  reliability ${l.reliability.filter((b) => b.count > 0).map((b) => `[${b.lower.toFixed(1)},${b.upper.toFixed(1)}) n=${b.count} obs=${f(b.observed_frequency, 2)}`).join(' ')}`);
say();
const prod = r.lines.filter((l) => l.name.includes('selected by rolling origin'));
for (const l of prod) {
  say(`Reliability, ${l.name}, ${l.horizon_hours}h (observed ${f(l.observed_frequency, 3)}, mean forecast ${f(l.mean_probability, 3)}):`);
  say('      bin          n   mean p   observed');
  for (const b of l.reliability) if (b.count > 0) say(`      [${b.lower.toFixed(1)},${b.upper.toFixed(1)})  ${String(b.count).padStart(4)}   ${f(b.mean_probability, 3)}    ${f(b.observed_frequency, 3)}`);
}
console.log(out.join('\n'));
