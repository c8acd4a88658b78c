// The scheduled tick as the refresh workflow runs it (`node --enable-source-maps build/refresh.mjs`), side by side with
// the floor of starting Node at all (`node -e ""`), in alternating runs so a shared machine's drift hits both alike.
// Offline (every source disabled) and warm (an untimed first tick fills state and dist). Wall is spawn to exit, CPU
// is user + sys from /usr/bin/time. A plain measure with no target: a tick is a small part of the 15-minute job.
//   npx tsx bench/tick.ts [--quick]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { SCHEDULE_BUILD_DIR, buildSchedules } from '../scripts/build-schedules.ts';
import { BENCH_NOW, ROOT, median } from './lib.ts';

const runs = process.argv.includes('--quick') ? 3 : 11;
await buildSchedules();
const root = mkdtempSync(path.join(tmpdir(), 'rsa-bench-tick-'));
const timeFile = path.join(root, 'time.txt');
const env = {
  ...process.env,
  RESET_UPSTREAM_URL: '',
  RESET_TIMELINE_URL: '',
  RESET_POST_EMBED_URL: '',
  RESET_STATUS_PAGE_URL: '',
  RESET_SIGNAL_FEEDS: '',
};
const variants: Record<string, string[]> = {
  'node -e ""': ['-e', ''],
  'node --enable-source-maps build/refresh.mjs': [
    '--enable-source-maps',
    path.join(SCHEDULE_BUILD_DIR, 'refresh.mjs'),
    ...['--target', 'local', '--now', BENCH_NOW, '--data-dir', path.join(ROOT, 'data')],
    ...['--out', path.join(root, 'dist'), '--state-dir', path.join(root, 'state')],
  ],
};

/** One run under /usr/bin/time: wall and CPU in seconds. */
function timed(args: string[]): { wall: number; cpu: number } {
  const started = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S', '-o', timeFile, process.execPath, ...args], { env });
  const wall = (performance.now() - started) / 1000;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}\n${r.stderr.toString().slice(-2000)}`);
  const [user, sys] = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
  return { wall, cpu: user! + sys! };
}

try {
  timed(variants['node --enable-source-maps build/refresh.mjs']!);
  const times = Object.fromEntries(
    Object.keys(variants).map((name) => [name, { wall: [] as number[], cpu: [] as number[] }]),
  );
  for (let i = 0; i < runs; i++) {
    for (const [name, args] of Object.entries(variants)) {
      const { wall, cpu } = timed(args);
      times[name]!.wall.push(wall);
      times[name]!.cpu.push(cpu);
    }
  }
  console.log(`${runs} alternating runs, medians; load average ${loadavg()[0]!.toFixed(1)}\n`);
  console.log('| process | wall | CPU |\n|---|---|---|');
  for (const [name, t] of Object.entries(times))
    console.log(`| \`${name}\` | ${median(t.wall).toFixed(2)} s | ${median(t.cpu).toFixed(2)} s |`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
