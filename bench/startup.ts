// Benchmark: what one scheduled tick costs as the workflow runs it, the esbuild bundle (scripts/build-schedules.ts)
// against the same tick under tsx (schedules/refresh.ts) and against the floor of starting Node at all. Every variant
// runs once per round, rounds repeated (A B C D … A B C D …), so drift on a shared machine hits every variant alike; figures are
// medians of wall time and of CPU time (user + sys of the whole process tree, from /usr/bin/time), and the ratios
// come from the same run. Ticks are warm (an untimed first tick fills state and dist) with the three loopback sources.
// The CPU reference's render term is measured in bench/refresh.ts's child, as in a tick: the render
// stage's CPU (process.cpuUsage, every thread; its wall time would grow with the machine's load while the bundle is
// measured in CPU) plus the main-thread time that produced the documents rendered as the sink pulls them (the event
// documents and history pages, which streaming renders inside the publish stage). The report also gives the
// comparison with the render stage alone.
//
//   npx tsx bench/startup.ts [--quick] [--compare <other refresh.mjs>] [--profile]
// --compare adds another build of the bundle as its own variant in the same rounds (a before/after in one run: build
// the other commit's bundle with `git worktree add /tmp/old <commit> && (cd /tmp/old && npm ci && npm run
// build:schedules)`, then pass /tmp/old/build/refresh.mjs). --profile ends with one bundled tick under --cpu-prof and
// prints where its CPU went, by package or source file (through the source map).
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { SourceMap } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { SCHEDULE_BUILD_DIR, buildSchedules } from '../scripts/build-schedules.ts';
import {
  BENCH_NOW,
  ROOT,
  benchArgs,
  fmtMs,
  lastJson,
  median,
  runChild,
  saveResults,
  startSources,
  table,
} from './lib.ts';

/**
 * Reference points the bench reports the bundled tick against, not requirements (a tick is a small part of the
 * 15-minute job): wall on a quiet machine, and CPU against the Node floor plus the render itself.
 */
export const STARTUP_WALL_TARGET_MS = 500;
export const STARTUP_CPU_FLOOR_FACTOR = 3;
const TIME_BIN = '/usr/bin/time';

export interface StartupResult {
  runs: number;
  load_average: number[];
  variants: Record<string, { wall_ms: number[]; cpu_ms: number[] }>;
  render_ms: number[];
  /**
   * The CPU reference's render term: CPU (user + sys, all threads) of the render stage plus the main-thread time that produced
   * the documents rendered as the sink pulls them (event documents, history pages: since streaming, inside publish).
   */
  render_cpu_ms: number[];
  /** The render stage's CPU alone, without the documents rendered as the sink pulls them. */
  render_stage_cpu_ms?: number[];
  /** --profile: milliseconds of the profiled bundled tick by package (node_modules), builder file or runtime part. */
  profile?: Record<string, number>;
}

/** Runs one command under /usr/bin/time; returns wall (spawn to exit) and CPU (user + sys, children included). */
async function timed(
  argv: readonly string[],
  env: Record<string, string>,
  timeFile: string,
): Promise<{ wallMs: number; cpuMs: number; stdout: string }> {
  const r = await runChild(TIME_BIN, ['-f', '%U %S', '-o', timeFile, ...argv], { env });
  if (r.code !== 0) throw new Error(`${argv.join(' ')} exited ${r.code}\n${r.stderr.slice(-2000)}`);
  const [user, sys] = (await readFile(timeFile, 'utf8')).trim().split('\n').pop()!.split(' ').map(Number);
  return { wallMs: r.wallMs, cpuMs: ((user ?? NaN) + (sys ?? NaN)) * 1000, stdout: r.stdout };
}

export async function benchStartup(opts: {
  quick: boolean;
  compare?: string | null;
  profile?: boolean;
}): Promise<{ result: StartupResult; report: string }> {
  const runs = opts.quick ? 3 : 7;
  if (
    !(await runChild(TIME_BIN, ['-f', '%U', 'true']).then(
      (r) => r.code === 0,
      () => false,
    ))
  )
    throw new Error(`${TIME_BIN} is needed for CPU time (apt-get install time)`);
  await buildSchedules();
  const bundle = path.join(SCHEDULE_BUILD_DIR, 'refresh.mjs');
  const sources = await startSources();
  // The tracker's status endpoint is derived from its URL and has no loopback fixture here: off, as an operator may.
  const env = { ...sources.env, RESET_UPSTREAM_STATUS_URL: '' };
  const root = await mkdtemp(path.join(tmpdir(), 'rsa-bench-startup-'));
  const timeFile = path.join(root, 'time.txt');
  const data = path.join(ROOT, 'data');
  const tickArgs = (name: string) => [
    '--target',
    'local',
    '--now',
    BENCH_NOW,
    '--out',
    path.join(root, name, 'dist'),
    '--state-dir',
    path.join(root, name, 'state'),
    '--data-dir',
    data,
  ];
  const variants: [string, string[]][] = [
    ['node -e "" (Node floor)', [process.execPath, '-e', '']],
    // Exactly the refresh workflow's command (refresh.yml).
    ['bundle: node build/refresh.mjs', [process.execPath, bundle, ...tickArgs('bundle')]],
    ...(opts.compare
      ? [
          [`compare: node ${opts.compare}`, [process.execPath, path.resolve(opts.compare), ...tickArgs('compare')]] as [
            string,
            string[],
          ],
        ]
      : []),
    [
      'tsx: node --import tsx schedules/refresh.ts',
      [process.execPath, '--import', 'tsx', 'schedules/refresh.ts', ...tickArgs('tsx')],
    ],
    [
      'bundle loaded only (import, no tick)',
      [process.execPath, '--input-type=module', '-e', `await import(${JSON.stringify(pathToFileURL(bundle).href)})`],
    ],
    ['bundle build step (once per workflow run)', [process.execPath, '--import', 'tsx', 'scripts/build-schedules.ts']],
  ];
  const result: StartupResult = {
    runs,
    load_average: loadavg(),
    variants: {},
    render_ms: [],
    render_cpu_ms: [],
    render_stage_cpu_ms: [],
  };
  try {
    // Untimed first ticks: every timed tick is the warm one the schedule runs every 15 minutes.
    for (const [name, argv] of variants) if (/refresh|compare/.test(name)) await timed(argv, env, timeFile);
    for (let i = 0; i < runs; i++) {
      for (const [name, argv] of variants) {
        const r = await timed(argv, env, timeFile);
        if (name.includes('refresh') && !/sources: 3 ok, 0 failed/.test(r.stdout))
          throw new Error(`${name}: sources did not all succeed\n${r.stdout}`);
        const v = (result.variants[name] ??= { wall_ms: [], cpu_ms: [] });
        v.wall_ms.push(r.wallMs);
        v.cpu_ms.push(r.cpuMs);
      }
      // The rendering alone, in process (bench/refresh.ts's child, as in a tick): the work no start-up
      // saving can remove. The render stage, plus the documents rendered as the sink pulls them in the publish stage.
      const c = await runChild(
        process.execPath,
        [
          '--import',
          'tsx',
          'bench/refresh.ts',
          '--child',
          path.join(root, 'stages', 'dist'),
          path.join(root, 'stages', 'state'),
          data,
        ],
        { env },
      );
      if (c.code !== 0) throw new Error(`stage child exited ${c.code}\n${c.stderr.slice(-2000)}`);
      const rep = lastJson<{
        stages: Record<string, number>;
        stages_cpu: Record<string, number>;
        pulled_render_ms: number;
      }>(c.stdout);
      result.render_ms.push(rep.stages.render ?? NaN);
      result.render_cpu_ms.push((rep.stages_cpu.render ?? NaN) + rep.pulled_render_ms);
      result.render_stage_cpu_ms!.push(rep.stages_cpu.render ?? NaN);
    }
    if (opts.profile)
      result.profile = await profileTick(
        [process.execPath, bundle, ...tickArgs('bundle')],
        env,
        path.join(root, 'profile'),
        `${bundle}.map`,
      );
  } finally {
    await sources.close();
    await rm(root, { recursive: true, force: true });
  }
  result.load_average = result.load_average.map((a, i) => (a + loadavg()[i]!) / 2);
  return { result, report: startupReport(result) };
}

/** Where a tick's CPU samples fall: self time by npm package, builder file (mapped through the bundle's map) or runtime. */
async function profileTick(
  argv: readonly string[],
  env: Record<string, string>,
  dir: string,
  mapFile: string,
): Promise<Record<string, number>> {
  const [node, ...rest] = argv;
  const r = await runChild(node!, ['--cpu-prof', '--cpu-prof-dir', dir, ...rest], { env });
  if (r.code !== 0) throw new Error(`profiled tick exited ${r.code}\n${r.stderr.slice(-2000)}`);
  const [file] = await readdir(dir);
  const prof = JSON.parse(await readFile(path.join(dir, file!), 'utf8')) as {
    nodes: { id: number; callFrame: { url: string; functionName: string; lineNumber: number; columnNumber: number } }[];
    samples: number[];
    timeDeltas: number[];
  };
  const map = new SourceMap(JSON.parse(await readFile(mapFile, 'utf8')) as never);
  const bundleUrl = pathToFileURL(argv.find((a) => a.endsWith('.mjs'))!).href;
  const label = new Map<number, string>();
  for (const n of prof.nodes) {
    const { url, functionName, lineNumber, columnNumber } = n.callFrame;
    let where: string;
    if (url === bundleUrl) {
      const src = (map.findEntry(lineNumber, columnNumber) as { originalSource?: string }).originalSource;
      const nm = src?.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
      where = nm ? nm[1]! : src ? src.replace(/^.*?\/(builder|schedules)\//, '$1/') : 'bundle (esbuild helpers)';
    } else if (url.startsWith('node:')) where = 'node internals (module loading, fs, source maps)';
    else where = url || `(${functionName || 'native'})`;
    label.set(n.id, where);
  }
  const out: Record<string, number> = {};
  prof.samples.forEach((id, i) => {
    const k = label.get(id)!;
    out[k] = (out[k] ?? 0) + (prof.timeDeltas[i + 1] ?? 0) / 1000;
  });
  return out;
}

export function startupReport(r: StartupResult): string {
  const names = Object.keys(r.variants);
  const med = (name: string, k: 'wall_ms' | 'cpu_ms') => median(r.variants[name]![k]);
  const [floor, bundled] = names as [string, string];
  const compare = names.find((n) => n.startsWith('compare: '));
  const tsx = names.find((n) => n.startsWith('tsx: '))!;
  const rows = names.map((n) => [
    n,
    fmtMs(med(n, 'wall_ms')),
    fmtMs(med(n, 'cpu_ms')),
    `${(med(n, 'wall_ms') / med(floor, 'wall_ms')).toFixed(1)}×`,
    `${(med(n, 'cpu_ms') / med(floor, 'cpu_ms')).toFixed(1)}×`,
  ]);
  // Ratios of two variants are medians of their per-round ratios: each round ran both back to back, so a slow spell
  // of the machine moves both sides of a ratio alike.
  const paired = (a: string, b: string, k: 'wall_ms' | 'cpu_ms') =>
    median(r.variants[a]![k].map((v, i) => v / r.variants[b]![k][i]!));
  const render = median(r.render_ms);
  const renderCpu = median(r.render_cpu_ms ?? []);
  const cpuBudget = STARTUP_CPU_FLOOR_FACTOR * med(floor, 'cpu_ms') + renderCpu;
  const stageCpu = r.render_stage_cpu_ms?.length ? median(r.render_stage_cpu_ms) : null;
  const stageBudget = stageCpu === null ? null : STARTUP_CPU_FLOOR_FACTOR * med(floor, 'cpu_ms') + stageCpu;
  return [
    `### Tick start-up: bundle vs tsx vs node -e "" (${r.runs} alternating rounds, medians; load average ${r.load_average.map((a) => a.toFixed(1)).join(' ')})`,
    '',
    table(['process', 'wall', 'CPU (user+sys)', 'wall / floor', 'CPU / floor'], rows),
    '',
    `Bundle vs tsx, same rounds: wall ${paired(bundled, tsx, 'wall_ms').toFixed(2)}×, CPU ${paired(bundled, tsx, 'cpu_ms').toFixed(2)}×.`,
    `Rendering in process: the render stage ${fmtMs(render)} wall${stageCpu === null ? '' : `, ${fmtMs(stageCpu)} CPU`}; with the documents rendered as the sink pulls them, ${fmtMs(renderCpu)} CPU. CPU goal ${STARTUP_CPU_FLOOR_FACTOR}× floor + render CPU = ${fmtMs(cpuBudget)}: bundle ${fmtMs(med(bundled, 'cpu_ms'))} -> ${med(bundled, 'cpu_ms') <= cpuBudget ? 'met' : 'MISSED'}.`,
    ...(stageBudget === null
      ? []
      : [
          `Counting the render stage only: ${STARTUP_CPU_FLOOR_FACTOR}× floor + ${fmtMs(stageCpu!)} = ${fmtMs(stageBudget)} -> ${med(bundled, 'cpu_ms') <= stageBudget ? 'met' : 'MISSED'}.`,
        ]),
    `Wall goal ${fmtMs(STARTUP_WALL_TARGET_MS)} on a quiet machine: bundle ${fmtMs(med(bundled, 'wall_ms'))} here (${med(bundled, 'wall_ms') <= STARTUP_WALL_TARGET_MS ? 'met' : 'not met on this machine'}, load average above).`,
    ...(compare
      ? [
          `This build vs the compared one, same rounds: wall ${paired(bundled, compare, 'wall_ms').toFixed(2)}×, CPU ${paired(bundled, compare, 'cpu_ms').toFixed(2)}×.`,
        ]
      : []),
    ...(r.profile ? ['', profileReport(r.profile)] : []),
  ].join('\n');
}

function profileReport(p: Record<string, number>): string {
  const total = Object.values(p).reduce((a, b) => a + b, 0);
  const rows = Object.entries(p)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 15)
    .map(([k, ms]) => [k, fmtMs(ms), `${((ms / total) * 100).toFixed(1)}%`]);
  return [
    `CPU profile of one bundled tick (--cpu-prof, self time, ${fmtMs(total)} sampled):`,
    '',
    table(['where', 'self', 'share'], rows),
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = benchArgs();
  const at = args.rest.indexOf('--compare');
  const { result, report } = await benchStartup({
    quick: args.quick,
    compare: at >= 0 ? (args.rest[at + 1] ?? null) : null,
    profile: args.rest.includes('--profile'),
  });
  console.log(report);
  console.log(`\n(raw: ${await saveResults('startup', result)})`);
}
