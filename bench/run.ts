// All benchmarks in sequence (`npm run bench`, `--quick` for fewer repetitions and smaller sizes). Each one also
// runs alone: npx tsx bench/<name>.ts. Raw figures land in bench/results/*.json (ignored by git).
import { benchHostileParse } from './hostile-parse.ts';
import { benchPublish } from './publish.ts';
import { benchRefresh } from './refresh.ts';
import { benchScale } from './scale.ts';
import { benchServe } from './serve.ts';
import { benchStartup } from './startup.ts';
import { benchStorm, stormReport } from './storm.ts';
import { benchArgs, machine, saveResults } from './lib.ts';

const args = benchArgs();
const only = new Set(args.rest);
const want = (name: string) => only.size === 0 || only.has(name);
const m = machine();
console.log(
  `machine: node ${m.node}, ${m.nproc} CPUs (${m.cpu}), ${m.memory_mib} MiB, ${m.platform}${args.quick ? ', --quick' : ''}\n`,
);
const all: Record<string, unknown> = {};
for (const [name, bench] of [
  ['refresh', () => benchRefresh(args)],
  ['startup', () => benchStartup(args)],
  ['scale', () => benchScale(args)],
  ['serve', () => benchServe(args)],
  ['publish', () => benchPublish(args)],
  ['hostile-parse', () => benchHostileParse(args)],
  [
    'storm',
    async () => {
      const result = await benchStorm(args.quick ? 5 : 20, 1001);
      return { result, report: stormReport(result) };
    },
  ],
] as const) {
  if (!want(name)) continue;
  const { result, report } = await bench();
  all[name] = result;
  console.log(report + '\n');
}
console.log(`(raw: ${await saveResults('all', all)})`);
