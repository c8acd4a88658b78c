// Benchmark: what one scheduled tick costs as the workflow runs it, the esbuild bundle (scripts/build-schedules.ts)
// against the tsx entry point it replaced and against the floor of starting Node at all. Every variant runs once per
// round, rounds repeated (A B C D … A B C D …), so drift on a shared machine hits every variant alike; figures are
// medians of wall time and of CPU time (user + sys of the whole process tree, from /usr/bin/time), and the ratios
// come from the same run. Ticks are warm (an untimed first tick fills state and dist) with the three loopback sources.
//
//   npx tsx bench/startup.ts [--quick]
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { SCHEDULE_BUILD_DIR, buildSchedules } from '../scripts/build-schedules.ts';
import { BENCH_NOW, ROOT, benchArgs, fmtMs, lastJson, median, runChild, saveResults, startSources, table } from './lib.ts';

/** Issue 23's goals for the bundled tick: wall on a quiet machine, CPU against the Node floor plus the render itself. */
export const STARTUP_WALL_TARGET_MS = 500;
export const STARTUP_CPU_FLOOR_FACTOR = 3;
const TIME_BIN = '/usr/bin/time';

export interface StartupResult {
  runs: number;
  load_average: number[];
  variants: Record<string, { wall_ms: number[]; cpu_ms: number[] }>;
  render_ms: number[];
}

/** Runs one command under /usr/bin/time; returns wall (spawn to exit) and CPU (user + sys, children included). */
async function timed(argv: readonly string[], env: Record<string, string>, timeFile: string): Promise<{ wallMs: number; cpuMs: number; stdout: string }> {
  const r = await runChild(TIME_BIN, ['-f', '%U %S', '-o', timeFile, ...argv], { env });
  if (r.code !== 0) throw new Error(`${argv.join(' ')} exited ${r.code}\n${r.stderr.slice(-2000)}`);
  const [user, sys] = (await readFile(timeFile, 'utf8')).trim().split('\n').pop()!.split(' ').map(Number);
  return { wallMs: r.wallMs, cpuMs: ((user ?? NaN) + (sys ?? NaN)) * 1000, stdout: r.stdout };
}

export async function benchStartup(opts: { quick: boolean }): Promise<{ result: StartupResult; report: string }> {
  const runs = opts.quick ? 3 : 7;
  if (!(await runChild(TIME_BIN, ['-f', '%U', 'true']).then((r) => r.code === 0, () => false))) throw new Error(`${TIME_BIN} is needed for CPU time (apt-get install time)`);
  await buildSchedules();
  const bundle = path.join(SCHEDULE_BUILD_DIR, 'refresh.mjs');
  const sources = await startSources();
  // The tracker's status endpoint is derived from its URL and has no loopback fixture here: off, as an operator may.
  const env = { ...sources.env, RESET_UPSTREAM_STATUS_URL: '' };
  const root = await mkdtemp(path.join(tmpdir(), 'rsa-bench-startup-'));
  const timeFile = path.join(root, 'time.txt');
  const data = path.join(ROOT, 'data');
  const tickArgs = (name: string) => ['--target', 'local', '--now', BENCH_NOW, '--out', path.join(root, name, 'dist'), '--state-dir', path.join(root, name, 'state'), '--data-dir', data];
  const variants: [string, string[]][] = [
    ['node -e "" (Node floor)', [process.execPath, '-e', '']],
    ['bundle: node --enable-source-maps build/refresh.mjs', [process.execPath, '--enable-source-maps', bundle, ...tickArgs('bundle')]],
    ['tsx: node --import tsx schedules/refresh.ts', [process.execPath, '--import', 'tsx', 'schedules/refresh.ts', ...tickArgs('tsx')]],
    ['bundle loaded only (import, no tick)', [process.execPath, '--enable-source-maps', '--input-type=module', '-e', `await import(${JSON.stringify(pathToFileURL(bundle).href)})`]],
    ['bundle build step (once per workflow run)', [process.execPath, '--import', 'tsx', 'scripts/build-schedules.ts']],
  ];
  const result: StartupResult = { runs, load_average: loadavg(), variants: {}, render_ms: [] };
  try {
    // Untimed first ticks: every timed tick is the warm one the schedule runs every 15 minutes.
    for (const [, argv] of variants.slice(1, 3)) await timed(argv, env, timeFile);
    for (let i = 0; i < runs; i++) {
      for (const [name, argv] of variants) {
        const r = await timed(argv, env, timeFile);
        if (name.includes('refresh') && !/sources: 3 ok, 0 failed/.test(r.stdout)) throw new Error(`${name}: sources did not all succeed\n${r.stdout}`);
        const v = (result.variants[name] ??= { wall_ms: [], cpu_ms: [] });
        v.wall_ms.push(r.wallMs);
        v.cpu_ms.push(r.cpuMs);
      }
      // The render stage alone, in process (bench/refresh.ts's child): the work no start-up saving can remove.
      const c = await runChild(process.execPath, ['--import', 'tsx', 'bench/refresh.ts', '--child', path.join(root, 'stages', 'dist'), path.join(root, 'stages', 'state'), data], { env });
      if (c.code !== 0) throw new Error(`stage child exited ${c.code}\n${c.stderr.slice(-2000)}`);
      result.render_ms.push(lastJson<{ stages: Record<string, number> }>(c.stdout).stages.render ?? NaN);
    }
  } finally {
    await sources.close();
    await rm(root, { recursive: true, force: true });
  }
  result.load_average = result.load_average.map((a, i) => (a + loadavg()[i]!) / 2);
  return { result, report: startupReport(result) };
}

export function startupReport(r: StartupResult): string {
  const names = Object.keys(r.variants);
  const med = (name: string, k: 'wall_ms' | 'cpu_ms') => median(r.variants[name]![k]);
  const [floor, bundled, tsx] = names as [string, string, string];
  const rows = names.map((n) => [
    n,
    fmtMs(med(n, 'wall_ms')),
    fmtMs(med(n, 'cpu_ms')),
    `${(med(n, 'wall_ms') / med(floor, 'wall_ms')).toFixed(1)}×`,
    `${(med(n, 'cpu_ms') / med(floor, 'cpu_ms')).toFixed(1)}×`,
  ]);
  const render = median(r.render_ms);
  const cpuBudget = STARTUP_CPU_FLOOR_FACTOR * med(floor, 'cpu_ms') + render;
  return [
    `### Tick start-up: bundle vs tsx vs node -e "" (${r.runs} alternating rounds, medians; load average ${r.load_average.map((a) => a.toFixed(1)).join(' ')})`,
    '',
    table(['process', 'wall', 'CPU (user+sys)', 'wall / floor', 'CPU / floor'], rows),
    '',
    `Bundle vs tsx, same run: wall ${(med(bundled, 'wall_ms') / med(tsx, 'wall_ms')).toFixed(2)}×, CPU ${(med(bundled, 'cpu_ms') / med(tsx, 'cpu_ms')).toFixed(2)}×.`,
    `Render stage in process (wall): ${fmtMs(render)}. CPU goal ${STARTUP_CPU_FLOOR_FACTOR}× floor + render = ${fmtMs(cpuBudget)}: bundle ${fmtMs(med(bundled, 'cpu_ms'))} -> ${med(bundled, 'cpu_ms') <= cpuBudget ? 'met' : 'MISSED'}.`,
    `Wall goal ${fmtMs(STARTUP_WALL_TARGET_MS)} on a quiet machine: bundle ${fmtMs(med(bundled, 'wall_ms'))} here (${med(bundled, 'wall_ms') <= STARTUP_WALL_TARGET_MS ? 'met' : 'not met on this machine'}, load average above).`,
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { result, report } = await benchStartup(benchArgs());
  console.log(report);
  console.log(`\n(raw: ${await saveResults('startup', result)})`);
}
