// builder/v8-tuning.ts turns TurboFan off and on mid-run with v8.setFlagsFromString, which Node documents as possibly
// without effect once V8 runs. This proves, in the Node that runs the tests, that both switches take effect: a process
// started with V8's defaults optimizes a hot function, cannot once its entry point called startSmallRun, and can again
// once a run of 1,000 events turned TurboFan back on.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { TUNED_FROM_EVENTS } from '../builder/v8-tuning.ts';

const run = promisify(execFile);
const module = pathToFileURL(path.resolve('builder/v8-tuning.ts')).href;

/** V8's optimization status bit of a function TurboFan compiled (src/runtime/runtime-test.cc, OptimizationStatus). */
const TURBOFANNED = 1 << 6;

const child = `
import { startSmallRun, tuneForRunSize } from ${JSON.stringify(module)};
const status = new Function('f', 'return %GetOptimizationStatus(f)');
const prepare = new Function('f', '%PrepareFunctionForOptimization(f)');
const optimize = new Function('f', '%OptimizeFunctionOnNextCall(f)');
const tryOptimize = () => {
  const f = new Function('x', 'return x * 2 + 1');
  prepare(f); f(1); f(2); optimize(f); f(3);
  return status(f);
};
const out = [];
out.push({ tuned: false, status: tryOptimize() });
startSmallRun();
out.push({ tuned: tuneForRunSize(${TUNED_FROM_EVENTS - 1}), status: tryOptimize() });
out.push({ tuned: tuneForRunSize(${TUNED_FROM_EVENTS}), status: tryOptimize() });
console.log(JSON.stringify(out));
`;

describe('tuneForRunSize', () => {
  it('a tick optimizes nothing after startSmallRun below 1,000 events, and again from 1,000', async () => {
    const { stdout } = await run(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', child], { timeout: 60_000 });
    const [before, small, large] = JSON.parse(stdout.trim().split('\n').pop()!) as { tuned: boolean; status: number }[];
    expect(before!.status & TURBOFANNED, 'V8 defaults optimize').toBe(TURBOFANNED);
    expect(small!.tuned).toBe(false);
    expect(small!.status & TURBOFANNED).toBe(0);
    expect(large!.tuned).toBe(true);
    expect(large!.status & TURBOFANNED).toBe(TURBOFANNED);
  });
});
