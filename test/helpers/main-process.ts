// The real build entry point (builder/main.ts) as a child process, as CI and the schedules run it: for suites that
// must see exactly what an operator sees (stdout, stderr, the exit code) and what the process environment changes.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { listFiles } from './files.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

export interface MainResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** `node --import tsx builder/main.ts ...args` with `env` over this process's environment and a local target. */
export function runMain(args: readonly string[], env: Readonly<Record<string, string>>): Promise<MainResult> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'builder/main.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env, RESET_TARGET: 'local' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: performance.now() - started }));
  });
}

/** Everything a build left for anyone to read, as `[name, text]`: its stdout and stderr, every file of `dist/` and `state/` under `root`. */
export async function buildOutputs(root: string, result: MainResult): Promise<[string, string][]> {
  const outputs: [string, string][] = [
    ['stdout', result.stdout],
    ['stderr', result.stderr],
  ];
  for (const dir of ['dist', 'state']) {
    for (const f of await listFiles(path.join(root, dir)))
      outputs.push([`${dir}/${f}`, await readFile(path.join(root, dir, f), 'utf8')]);
  }
  return outputs;
}
