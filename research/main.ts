// Walk-forward backtest of the candidate models on the bundled history (data/), scored by ResetBench's rules, and
// each candidate on ResetBench's leaderboard window as its hourly collector would have fetched it.
// Deterministic: no clock, and the bootstrap is seeded; the same data prints the same report.
// Usage: npm run backtest [-- dataDir]
import { mergeEvents } from '../builder/model/events.ts';
import { MODEL_VERSION, computeForecast } from '../builder/model/forecast.ts';
import { attachReach, countsAsGlobal } from '../builder/model/reach.ts';
import { loadCuratedData } from '../builder/sources/archive.ts';
import { BOOTSTRAP, MIN_ANNOUNCEMENT_ROWS, computeBacktest, type ScoreLine } from './backtest.ts';
import { CANDIDATES, SHIPPED_PARAMS, family } from './candidates.ts';
import { describeWindow, scoreLeaderboardWindow, type WindowScore } from './resetbench-window.ts';

const dataDir = process.argv[2] ?? new URL('../data', import.meta.url).pathname;
const { events, announcements, reach } = await loadCuratedData(dataDir);
// In hindsight, like the archive's baked-in review decisions: every reach decision applies (docs/reach.md).
const merged = mergeEvents(attachReach(events, reach ?? {}, new Date(8.64e15)));
const r = computeBacktest(merged, announcements ?? []);

const f = (x: number | null, digits = 4) => (x === null ? '-' : x.toFixed(digits));
const signed = (x: number | null, digits = 3) => (x === null ? '-' : `${x >= 0 ? '+' : ''}${x.toFixed(digits)}`);
const out: string[] = [];
/** Adds each argument as a line of the report; no argument adds a blank line. */
const say = (...lines: string[]) => out.push(...(lines.length === 0 ? [''] : lines));
const tuned = (c: (typeof CANDIDATES)[number]) => family(c).grid.length > 1;

say(
  'Backtest of 24h/48h global-reset forecasts',
  `Scored by ${r.rules}.`,
  `data: ${merged.length} merged events (${merged.filter(countsAsGlobal).length} global resets), ${r.from} .. ${r.to}; windows closing after ${r.to} are unresolved and not scored`,
  `checkpoints considered: ${r.checkpoints.considered}, skipped below the minimum sample: ${r.checkpoints.skipped_insufficient_data}`,
  '',
  'Model selection by rolling origin: at each origin every candidate is scored on the checkpoints resolved before it',
  "(objective: mean of the 24h and 48h Brier, on the same rows, each forecast out of sample: a tuned candidate with the grid point chosen at the start of the row's month); the winner forecasts the next month.",
);
const width = Math.max(...CANDIDATES.map((c) => c.length)) + 1;
say(`  ${'origin'.padEnd(21)} ${'rows'.padStart(4)}  ${CANDIDATES.map((c) => c.padStart(width)).join('')}  winner`);
for (const o of r.origins)
  say(
    `  ${o.origin}  ${String(o.rows).padStart(4)}  ${CANDIDATES.map((c) => f(o.scores[c]).padStart(width)).join('')}  ${o.winner}`,
  );
const last = r.origins.at(-1);
if (last !== undefined)
  for (const c of CANDIDATES.filter(tuned)) say(`  grid point of ${c} chosen at ${last.origin}: ${last.params[c]}`);
say(
  `  winner at the latest origin: ${r.winner.model} (${r.winner.params})`,
  '',
  `Evaluation ${r.evaluation.from} .. ${r.evaluation.to}: checkpoints from the first rolling origin on; each forecast uses the candidate (and its grid point) chosen at the latest origin before it, on checkpoints whose window had closed by that origin.`,
  `Skill = 1 - Brier / baseline Brier; [95% moving-block bootstrap interval, blocks of ${BOOTSTRAP.blockLength} checkpoints (7 days), ${BOOTSTRAP.iterations} resamples, seed ${BOOTSTRAP.seed}]`,
  'Baselines: climatology (all history, the published base rate), trailing 30-day and 90-day climatology (share of the checkpoint windows closed in the last 30/90 days that held a reset)',
  '',
);
const cell = (c: ScoreLine['versus'][number]) =>
  `${signed(c.skill)} [${signed(c.lower)}, ${signed(c.upper)}]`.padEnd(28);
const table = (lines: readonly ScoreLine[]) => {
  say(
    `  ${'model'.padEnd(52)} h     n   Brier   base rate Brier (all / 30d / 90d)   skill vs all                skill vs trailing 30d       skill vs trailing 90d`,
  );
  for (const l of lines) {
    const [all, t30, t90] = l.versus.map((v) => ({ brier: f(v.baseline_brier), cell: cell(v) }));
    say(
      `  ${l.name.padEnd(52)} ${l.horizon_hours}h ${String(l.forecasts).padStart(4)}  ${f(l.brier)}   ${all!.brier} / ${t30!.brier} / ${t90!.brier}      ${all!.cell}${t30!.cell}${t90!.cell}`,
    );
  }
};
table(r.lines);
say(
  '',
  `Outcomes with every reset dated by its announcement (ResetBench's event-time rule): ${r.resetbench_time.flips.length} checkpoint outcomes differ`,
);
const reset = (yes: boolean) => (yes ? 'reset' : 'no reset');
for (const x of r.resetbench_time.flips)
  say(`  ${x.checkpoint} ${x.horizon_hours}h: ${reset(x.outcome)} here, ${reset(!x.outcome)} by announcement time`);
table(r.resetbench_time.lines);

const windowCells = (scores: readonly WindowScore[]) =>
  scores
    .map(
      (s) =>
        `${s.horizon_hours}h n=${s.n} Brier ${f(s.brier)} (mean p ${f(s.mean_probability, 3)}, rank ${s.rank} of ${s.of}, peer median ${f(s.peer_median)})`,
    )
    .join('   ');
const asShipped = scoreLeaderboardWindow(merged, (at, h) => {
  const fc = computeForecast(merged, new Date(at));
  return h === 24 ? fc.probability_24h : fc.probability_48h;
});
say(
  '',
  `ResetBench leaderboard window, as its collector would have fetched each forecast: ${describeWindow()}.`,
  'Peers and their median from the published leaderboard. Each candidate with the grid point chosen at the latest origin before the window.',
  `  ${`${MODEL_VERSION} as shipped (computeForecast)`.padEnd(52)} ${windowCells(asShipped)}`,
  ...CANDIDATES.map(
    (c) => `  ${c.padEnd(52)} ${windowCells(r.goal[c].window)}${tuned(c) ? `  (${r.goal[c].window_params})` : ''}`,
  ),
  '',
  "Goal: out of sample over the whole evaluation no worse than either trailing base rate (the 95% skill interval reaches 0 or above, at 24h and 48h), and on ResetBench's leaderboard window, as collected hourly, a Brier at or below the median peer at both horizons.",
  ...CANDIDATES.map((c) => {
    const { skill_ok, window_ok } = r.goal[c];
    return `  ${c.padEnd(20)} out of sample ${skill_ok ? 'ok  ' : 'WORSE'}  leaderboard window ${window_ok ? 'ok  ' : 'ABOVE MEDIAN'}  -> ${skill_ok && window_ok ? 'meets the goal' : 'does not'}`;
  }),
  'Ship rule: among the candidates that meet the goal, the one with the lowest objective at the latest rolling origin; the plain winner when none does.',
);
const shippedParams = family(MODEL_VERSION).describe(SHIPPED_PARAMS);
const matches = r.shipped.model === MODEL_VERSION && r.shipped.params === shippedParams;
const a = r.announcements;
say(
  `  to ship: ${r.shipped.model} (${r.shipped.params})${r.shipped.meets_goal ? '' : ': NO candidate meets the goal'}; shipped in forecast.ts: ${MODEL_VERSION} (${shippedParams}) -> ${matches ? 'matches' : 'DOES NOT match'}`,
  '',
  `Announcement checkpoints (an 'ahead' post pending and due inside the horizon; data/announcement-review.json): n=${a.n} rows from posts ${a.posts.join(', ') || '-'}`,
);
if (!a.enough)
  say(
    `  n=${a.n} is below ${MIN_ANNOUNCEMENT_ROWS}: too few to claim anything about the announcement term; shown for completeness.`,
  );
for (const l of a.lines)
  say(
    `  ${l.name.padEnd(52)} ${l.horizon_hours}h ${String(l.forecasts).padStart(4)}  Brier ${f(l.brier)}  observed ${f(l.observed_frequency, 3)}  mean p ${f(l.mean_probability, 3)}`,
  );
say();
for (const l of r.lines.filter((x) => x.name.includes('as shipped'))) {
  say(
    `Reliability, ${l.name}, ${l.horizon_hours}h (observed ${f(l.observed_frequency, 3)}, mean forecast ${f(l.mean_probability, 3)}):`,
    '      bin          n   mean p   observed',
  );
  for (const b of l.reliability.filter((x) => x.count > 0))
    say(
      `      [${b.lower.toFixed(1)},${b.upper.toFixed(1)})  ${String(b.count).padStart(4)}   ${f(b.mean_probability, 3)}    ${f(b.observed_frequency, 3)}`,
    );
}
console.log(out.join('\n'));
