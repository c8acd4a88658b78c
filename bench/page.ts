// Page weight per language (bytes before and after gzip -9) and render time, for today's data/ (a real build with the
// network sources off) and for a synthetic year with a global reset every day and every calibration bin scored
// (the worst case of the timeline and the reliability section).
//   npx tsx bench/page.ts
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { pageKey, LANGS } from '../builder/contract.ts';
import { computeAccuracy } from '../builder/model/accuracy.ts';
import { computeToday } from '../builder/model/status.ts';
import { createLocalSink } from '../builder/publish/local-sink.ts';
import { renderApi, type RenderInput } from '../builder/render/documents.ts';
import { PAGE_MAX_BYTES, renderPages } from '../builder/render/page.tsx';
import { run } from '../builder/run.ts';
import { createHttpFetcher } from '../builder/sources/http-fetcher.ts';
import { createLocalStateStore } from '../builder/state/local-store.ts';
import { testEvent } from '../test/helpers/events.ts';
import { median } from './lib.ts';

const AS_OF = new Date('2026-11-23T12:00:00Z');

/** Scores for both horizons and every calibration bin filled: the most the reliability section ever draws. */
function fullAccuracy(): RenderInput['accuracy'] {
  const a = computeAccuracy([], [], AS_OF);
  const fill = (bins: typeof a.reliability.h24) =>
    bins.map((b) => ({ ...b, count: 12, mean_probability: b.lower + 0.05, observed_frequency: b.lower + 0.03 }));
  return {
    ...a,
    summary: {
      h24: { ...a.summary.h24, brier: 0.1, climatology_brier: 0.2, sample_size: 120 },
      h48: { ...a.summary.h48, brier: 0.15, climatology_brier: 0.22, sample_size: 120 },
    },
    reliability: { h24: fill(a.reliability.h24), h48: fill(a.reliability.h48) },
  };
}

function row(label: string, body: string): string {
  const bytes = Buffer.byteLength(body);
  const gz = gzipSync(body, { level: 9 }).length;
  return `| ${label} | ${bytes.toLocaleString('en')} | ${((bytes / PAGE_MAX_BYTES) * 100).toFixed(0)}% | ${gz.toLocaleString('en')} |`;
}

const root = await mkdtemp(path.join(tmpdir(), 'bench-page-'));
try {
  const dist = path.join(root, 'dist');
  await run({
    now: () => AS_OF,
    fetcher: createHttpFetcher(),
    sources: [],
    store: createLocalStateStore(path.join(root, 'state'), { now: () => AS_OF }),
    sink: createLocalSink(dist),
    dataDir: 'data',
  });
  console.log(
    `today's data/ (build at ${AS_OF.toISOString()}, sources off)\n\n| page | bytes | of 60 KB | gzip (zlib level 9) |\n|---|---:|---:|---:|`,
  );
  for (const lang of LANGS) console.log(row(`/${lang}/`, await readFile(path.join(dist, pageKey(lang)), 'utf8')));

  const events = Array.from({ length: 365 }, (_, i) =>
    testEvent(new Date(AS_OF.getTime() - i * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z')),
  );
  const input: RenderInput = {
    asOf: AS_OF,
    events,
    today: computeToday(events, [], AS_OF),
    latestReset: events[0]!,
    latestVerifiedReset: null,
    checks: [],
    upstreamStatus: null,
    signals: [],
    forecast: {
      probability_24h: 0.5,
      probability_48h: 0.7,
      base_rate_24h: 0.9,
      base_rate_48h: 1,
      sample_size: 365,
      model_version: 'hazard-v2',
      explanation: { code: 'insufficient_data', params: {} },
      last_global_reset_at: null,
    },
    accuracy: fullAccuracy(),
    archives: [],
  };
  const docs = renderApi(input);
  const pages = renderPages({ asOf: AS_OF, docs, events });
  const times = Array.from({ length: 7 }, () => {
    const t = performance.now();
    renderPages({ asOf: AS_OF, docs, events });
    return performance.now() - t;
  });
  console.log(
    `\nsynthetic year: a global reset every day (365 events), both horizons scored in all 10 calibration bins\n\n| page | bytes | of 60 KB | gzip (zlib level 9) |\n|---|---:|---:|---:|`,
  );
  for (const p of pages) console.log(row(`/${p.key.split('/')[1]}/`, p.body));
  console.log(`\nrender, all five pages (median of 7): synthetic year ${median(times).toFixed(1)} ms`);
} finally {
  await rm(root, { recursive: true, force: true });
}
