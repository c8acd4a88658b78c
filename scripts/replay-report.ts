// Builds the API against the replayed real upstreams at a scenario's date, run after run on one state, and prints what
// the core answer became: events, global resets in 365 days, verified ones, agreement, open disagreements, the forecast.
// node --import tsx scripts/replay-report.ts <scenario> <now> [runs] [--one-tracker]
// (scenarios: test/real-upstreams/replay.ts; --one-tracker: codex-reset.com and the post reader off, as the build was
// with one tracker).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main } from '../builder/main.ts';
import { SCENARIOS, startReplay, TWO_TRACKERS, type Scenario } from '../test/real-upstreams/replay.ts';

const args = process.argv.slice(2).filter((a) => a !== '--one-tracker');
const oneTracker = process.argv.includes('--one-tracker');
const [name = '2026-09-29', now = '2026-09-29T16:45:00Z', runs = '1'] = args;
const scenarios: Record<string, Scenario> = { ...SCENARIOS, ...TWO_TRACKERS };
const scenario = scenarios[name];
if (scenario === undefined) throw new Error(`no scenario ${name}: one of ${Object.keys(scenarios).join(', ')}`);
const root = mkdtempSync(path.join(tmpdir(), 'replay-'));
const off = oneTracker ? { RESET_TIMELINE_URL: '', RESET_POST_EMBED_URL: '' } : {};
type Doc = Record<string, unknown> & { events?: Ev[]; signals?: { kind: string; id: string; title: string }[] };
type Ev = { id: string; type: string; occurred_at: string; status: string; agreement?: string };
const ms = (at: string) => Date.parse(at.length === 10 ? `${at}T00:00:00Z` : at);
for (let run = 0, at = Date.parse(now); run < Number(runs); run++, at += 15 * 60_000) {
  const replay = await startReplay(scenario);
  try {
    const asOf = new Date(at).toISOString();
    const argv = ['--now', asOf, '--out', path.join(root, 'dist'), '--state-dir', path.join(root, 'state')];
    const quiet = { now: () => new Date(), out: () => {}, err: (l: string) => console.error(l) };
    const code = await main(argv, { ...process.env, ...replay.env, ...off }, quiet);
    if (code !== 0) throw new Error(`the build exited ${code}`);
    const doc = (p: string) => JSON.parse(readFileSync(path.join(root, 'dist', p), 'utf8')) as Doc;
    const hist = doc('api/en/history.json');
    const year = hist.events!.filter((e) => e.type === 'global_reset' && ms(e.occurred_at) >= at - 365 * 86_400_000);
    const agreement: Record<string, number> = {};
    for (const e of year) agreement[e.agreement ?? '-'] = (agreement[e.agreement ?? '-'] ?? 0) + 1;
    const reads = replay.requests.filter((r) => r.path.startsWith('/oembed')).length;
    console.log(
      `${asOf} events ${String(hist.count)} · global resets in 365 days ${year.length} · verified ${year.filter((e) => e.status === 'verified').length} · agreement ${JSON.stringify(agreement)} · posts read ${reads}`,
    );
    if (run < Number(runs) - 1) continue;
    const today = doc('api/en/latest.json').today as { state: string; explanation: string };
    console.log(`today ${today.state}: ${today.explanation}`);
    const f = doc('api/en/forecast.json');
    console.log('forecast', f.probability_24h, f.probability_48h, 'sample', f.sample_size, f.model_version);
    for (const s of doc('api/en/signals.json').signals!)
      if (['type_disagreement', 'tracker_missing', 'same_day_resets'].includes(s.kind))
        console.log(`open ${s.kind}: ${s.title}`);
  } finally {
    await replay.close();
  }
}
console.log('root', root);
