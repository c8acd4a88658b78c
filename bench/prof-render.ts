// Profiling aid (not part of npm run bench): renderApi alone over a synthetic data dir.
//   npx tsx bench/prof-render.ts 10000
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { computeAccuracy } from '../builder/model/accuracy.ts';
import { mergeEvents } from '../builder/model/events.ts';
import { computeForecast } from '../builder/model/forecast.ts';
import { computeLatest, computeToday } from '../builder/model/status.ts';
import { renderApi } from '../builder/render/documents.ts';
import { loadCuratedData } from '../builder/sources/archive.ts';
import { BENCH_NOW, median, writeSyntheticData } from './lib.ts';

const n = Number(process.argv[2] ?? 10_000);
const reps = Number(process.argv[3] ?? 3);
const work = await mkdtemp(path.join(tmpdir(), 'rsa-prof-'));
try {
  const curated = await loadCuratedData(await writeSyntheticData(path.join(work, 'data'), n));
  const asOf = new Date(BENCH_NOW);
  const events = mergeEvents(curated.events);
  const today = computeToday(events, [], asOf);
  const latest = computeLatest(events, asOf);
  const forecast = computeForecast(events, asOf);
  const accuracy = computeAccuracy([], [], asOf);
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    const docs = renderApi({
      asOf,
      events,
      today,
      latestReset: latest.latestReset,
      latestVerifiedReset: latest.latestVerifiedReset,
      checks: [],
      upstreamStatus: null,
      signals: [],
      forecast,
      accuracy,
      archives: curated.archives,
    });
    times.push(performance.now() - t0);
    bytes = docs.reduce((s, d) => s + d.body.length, 0);
  }
  console.log(
    JSON.stringify({ events: n, render_ms: times.map(Math.round), median_ms: Math.round(median(times)), chars: bytes }),
  );
} finally {
  await rm(work, { recursive: true, force: true });
}
