// One temporary folder for a whole `vitest run`: every folder the suite makes with os.tmpdir() (builds, states,
// browser profiles, workerd's files, the processes tests start) goes under it, and it is removed when the run ends,
// so the suite leaves nothing behind on a machine that runs it every day.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export default function setup(): () => void {
  const dir = mkdtempSync(path.join(tmpdir(), 'rsa-test-run-'));
  process.env.TMPDIR = dir;
  return () => {
    rmSync(dir, { recursive: true, force: true });
  };
}
