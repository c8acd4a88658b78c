// Every benchmark in sequence (`npm run bench`, `-- --quick` for fewer repetitions, `-- page storm` for a subset),
// each in its own process so one's memory does not count against the next. Each also runs alone: npx tsx bench/<name>.ts.
import { spawnSync } from 'node:child_process';
import { ROOT } from './lib.ts';

const ALL = ['tick', 'idle-tick', 'page', 'hostile-parse', 'storm'];
const quick = process.argv.includes('--quick');
const only = process.argv.slice(2).filter((a) => a !== '--quick');
for (const name of only.length > 0 ? only : ALL) {
  console.log(`## ${name}\n`);
  const args = ['--import', 'tsx', `bench/${name}.ts`, ...(quick ? ['--quick'] : [])];
  const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) process.exitCode = 1;
  console.log();
}
