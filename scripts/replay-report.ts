// Builds the API against the replayed real upstreams at a capture's date and prints what the core answer became.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main } from '../builder/main.ts';
import { SCENARIOS, startReplay } from '../test/real-upstreams/replay.ts';

const [name = '2026-09-29', now = '2026-09-29T16:45:00Z'] = process.argv.slice(2);
const replay = await startReplay(SCENARIOS[name as keyof typeof SCENARIOS]);
const root = mkdtempSync(path.join(tmpdir(), 'replay-'));
try {
  const args = ['--now', now, '--out', path.join(root, 'dist'), '--state-dir', path.join(root, 'state')];
  const code = await main(args, { ...process.env, ...replay.env });
  if (code !== 0) throw new Error(`the build exited ${code}`);
  const doc = (p: string) => JSON.parse(readFileSync(path.join(root, 'dist', p), 'utf8'));
  const hist = doc('api/en/history.json');
  const events = hist.events as { id: string; type: string; occurred_at: string; origin: string }[];
  const yearAgo = Date.parse(now) - 365 * 86400000;
  const globals = events.filter(
    (e) =>
      e.type === 'global_reset' &&
      Date.parse(e.occurred_at.length === 10 ? e.occurred_at + 'T00:00:00Z' : e.occurred_at) >= yearAgo,
  );
  console.log(
    'events',
    hist.count,
    'global resets in 365 days',
    globals.length,
    'tracker-only',
    events
      .filter((e) => e.origin === 'service_resets')
      .map((e) => `${e.id}:${e.type}`)
      .join(' '),
  );
  const f = doc('api/en/forecast.json');
  console.log('forecast', f.probability_24h, f.probability_48h, 'sample', f.sample_size, f.model_version);
  const s = doc('api/en/signals.json');
  console.log('signals', (s.signals as { kind: string; id: string }[]).map((x) => `${x.kind}:${x.id}`).join(' '));
  const st = doc('api/en/status.json');
  for (const c of st.checks ?? st.sources ?? []) console.log('check', JSON.stringify(c));
  console.log('root', root);
} finally {
  await replay.close();
}
