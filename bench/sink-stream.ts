// The local sink alone, fed the same synthetic build as a lazy stream and as a materialized array: peak RSS and wall
// time side by side, each publish in a child process of its own (so its peak RSS is its own), in alternating order.
// The build: `n` documents of realistic sizes (event files of 2-3 KB in five languages, history pages of 20-40 KB,
// summaries, and one 1 MiB full history per language), published cold into an empty directory, then again unchanged.
//
//   npx tsx bench/sink-stream.ts [--quick] [documents]      default 50,000 documents, 2 pairs (--quick: 1 pair)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { OutputDocument } from '../builder/render/output.ts';
import { benchArgs, fmtMiB, fmtMs, lastJson, median, prng, runChild, saveResults, table } from './lib.ts';

const LANGS = ['en', 'de', 'ko', 'ja', 'zh'] as const;
const TEXT = {
  en: 'Usage limits reset for everyone after the outage; thanks for your patience. ',
  de: 'Nutzungslimits nach der Störung für alle zurückgesetzt; danke für eure Geduld. ',
  ko: '장애 이후 모든 사용자의 사용 한도가 초기화되었습니다. 기다려 주셔서 감사합니다. ',
  ja: '障害の後、全員の利用上限がリセットされました。ご辛抱いただきありがとうございます。',
  zh: '故障之后所有人的使用额度已重置，感谢耐心等待。',
} as const;
const MIB = 1024 * 1024;
const JSON_TYPE = 'application/json; charset=utf-8';

/** A JSON body of about `bytes` UTF-8 bytes in `lang`. */
function body(id: string, lang: (typeof LANGS)[number], bytes: number): string {
  const unit = TEXT[lang];
  const unitBytes = Buffer.byteLength(unit);
  return JSON.stringify({ id, lang, summary: unit.repeat(Math.max(1, Math.round(bytes / unitBytes))) });
}

/** The synthetic build, produced one document at a time, in phase order; the same documents on every call. */
export function* syntheticBuild(n: number): Generator<OutputDocument> {
  const rnd = prng(7);
  const pages = Math.round(n * 0.018);
  const summaries = 100;
  const events = n - pages - summaries - LANGS.length;
  const doc = (key: string, text: string, lang: string | null, phase: number): OutputDocument => ({
    key,
    body: text,
    contentType: JSON_TYPE,
    contentLanguage: lang,
    cacheControl: 'public, max-age=30',
    phase,
  });
  for (let i = 0; i < events; i++) {
    const lang = LANGS[i % LANGS.length]!;
    yield doc(
      `api/${lang}/events/syn-${Math.floor(i / LANGS.length)}.json`,
      body(`syn-${i}`, lang, 2048 + Math.floor(rnd() * 1024)),
      lang,
      0,
    );
  }
  for (let i = 0; i < pages; i++) {
    const lang = LANGS[i % LANGS.length]!;
    yield doc(
      `api/${lang}/history/page-${Math.floor(i / LANGS.length)}.json`,
      body(`page-${i}`, lang, 20_480 + Math.floor(rnd() * 20_480)),
      lang,
      1,
    );
  }
  for (const lang of LANGS) yield doc(`api/${lang}/history-all.json`, body(`all-${lang}`, lang, MIB), lang, 1);
  for (let i = 0; i < summaries; i++) {
    const lang = LANGS[i % LANGS.length]!;
    yield doc(`api/${lang}/summary-${i}.json`, body(`summary-${i}`, lang, 5_000), lang, 2);
  }
}

type Mode = 'stream' | 'array';

interface ChildReport {
  mode: Mode;
  documents: number;
  bytes: number;
  /** An array: the time to build it before the publish. A stream is built while the sink takes it (in cold_ms). */
  build_ms: number;
  cold_ms: number;
  warm_ms: number;
  /** Peak RSS after the cold publish (an array: built before it), and after the unchanged one. */
  cold_max_rss_bytes: number;
  warm_max_rss_bytes: number;
  /** Peak RSS of the child before it built or published anything (Node, tsx, the sink's modules). */
  start_max_rss_bytes: number;
}

async function child(mode: Mode, n: number, dir: string): Promise<void> {
  const { createLocalSink } = await import('../builder/publish/local-sink.ts');
  const start = process.resourceUsage().maxRSS * 1024;
  const sink = createLocalSink(dir);
  let bytes = 0;
  let documents = 0;
  /** The build as this mode hands it over, counted as the sink takes it. */
  function* counted(): Generator<OutputDocument> {
    for (const d of syntheticBuild(n)) {
      documents++;
      bytes += Buffer.byteLength(d.body);
      yield d;
    }
  }
  // An array is built once and handed over twice (as a run holds its build); a stream is produced anew each time.
  const tBuild = performance.now();
  const array = mode === 'array' ? [...counted()] : null;
  const buildMs = performance.now() - tBuild;
  const build = () => array ?? counted();
  let t0 = performance.now();
  const cold = await sink.publish(build());
  const coldMs = performance.now() - t0;
  const coldRss = process.resourceUsage().maxRSS * 1024;
  if (cold.written !== n) throw new Error(`cold publish wrote ${cold.written} of ${n}`);
  if (array === null) {
    documents = 0;
    bytes = 0;
  }
  t0 = performance.now();
  const warm = await sink.publish(build());
  const warmMs = performance.now() - t0;
  if (warm.unchanged !== n) throw new Error(`unchanged publish found ${warm.unchanged} of ${n} unchanged`);
  const report: ChildReport = {
    mode,
    documents,
    bytes,
    build_ms: buildMs,
    cold_ms: coldMs,
    warm_ms: warmMs,
    cold_max_rss_bytes: coldRss,
    warm_max_rss_bytes: process.resourceUsage().maxRSS * 1024,
    start_max_rss_bytes: start,
  };
  console.log(JSON.stringify(report));
}

export async function benchSinkStream(opts: {
  quick: boolean;
  documents?: number;
}): Promise<{ result: ChildReport[]; report: string }> {
  const n = opts.documents ?? 50_000;
  const pairs = opts.quick ? 1 : 2;
  const work = await mkdtemp(path.join(tmpdir(), 'rsa-bench-sink-stream-'));
  const results: ChildReport[] = [];
  try {
    // Nothing is deleted until the end: right after 50,000 files are removed, creating files is slower (bench/scale.ts).
    let k = 0;
    for (let p = 0; p < pairs; p++) {
      for (const mode of (p % 2 === 0 ? ['array', 'stream'] : ['stream', 'array']) as Mode[]) {
        const c = await runChild(
          process.execPath,
          ['--import', 'tsx', 'bench/sink-stream.ts', '--child', mode, String(n), path.join(work, `dist-${k++}`)],
          { timeoutMs: 20 * 60 * 1000 },
        );
        if (c.code !== 0) throw new Error(`sink-stream child (${mode}) exited ${c.code}\n${c.stderr.slice(-3000)}`);
        const r = lastJson<ChildReport>(c.stdout);
        results.push(r);
        console.error(
          `[sink-stream] ${mode}: build ${fmtMs(r.build_ms)}, cold ${fmtMs(r.cold_ms)}, unchanged ${fmtMs(r.warm_ms)}, peak RSS ${fmtMiB(r.warm_max_rss_bytes)}`,
        );
      }
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  const of = (mode: Mode) => results.filter((r) => r.mode === mode);
  const row = (mode: Mode) => {
    const rs = of(mode);
    const list = (f: (r: ChildReport) => number, fmt: (x: number) => string) =>
      `${fmt(median(rs.map(f)))} (${rs.map((r) => fmt(f(r))).join(', ')})`;
    return [
      mode === 'stream' ? 'stream (generator)' : 'array (materialized)',
      list((r) => r.start_max_rss_bytes, fmtMiB),
      list((r) => r.cold_max_rss_bytes, fmtMiB),
      list((r) => r.warm_max_rss_bytes, fmtMiB),
      list((r) => r.build_ms + r.cold_ms, fmtMs),
      list((r) => r.warm_ms, fmtMs),
    ];
  };
  const peak = (mode: Mode) => median(of(mode).map((r) => r.warm_max_rss_bytes));
  const first = results[0]!;
  const report = [
    `### Local sink alone: ${n.toLocaleString('en')} documents (${fmtMiB(first.bytes)}), as a stream vs as an array (one child each, ${pairs} alternating pair${pairs > 1 ? 's' : ''}; median (each))`,
    '',
    table(
      [
        'build handed over as',
        'RSS at start',
        'peak RSS, cold publish',
        'peak RSS, + unchanged publish',
        'build + cold publish',
        'unchanged publish',
      ],
      [row('array'), row('stream')],
    ),
    '',
    `Peak RSS: array ${fmtMiB(peak('array'))}, stream ${fmtMiB(peak('stream'))} (${(peak('array') / peak('stream')).toFixed(1)}x less).`,
  ].join('\n');
  return { result: results, report };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = benchArgs();
  if (args.rest[0] === '--child') {
    const [, mode, n, dir] = args.rest as [string, Mode, string, string];
    await child(mode, Number(n), dir);
  } else {
    const n = Number(args.rest[0]);
    const { result, report } = await benchSinkStream({
      quick: args.quick,
      ...(Number.isInteger(n) && n > 0 ? { documents: n } : {}),
    });
    console.log(report);
    console.log(`\n(raw: ${await saveResults('sink-stream', result)})`);
  }
}
