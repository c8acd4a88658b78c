import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const check = (readme: string) =>
  promisify(execFile)('node', ['--import', 'tsx', 'scripts/readme-examples.ts', '--check', '--readme', readme], {
    cwd: root,
  }).then(
    () => 0,
    (err: { code?: number }) => err.code ?? -1,
  );

describe('README and docs/api.md examples (npm run docs:examples)', () => {
  let dir = '';
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('every example block in README.md equals the document a fresh offline build serves', async () => {
    const readme = await readFile(path.join(root, 'README.md'), 'utf8');
    expect(readme).toContain('<!-- example:forecast-en -->');
    expect(await check(path.join(root, 'README.md'))).toBe(0);
  }, 120_000);

  it('every example block in docs/api.md equals the document a fresh offline build serves', async () => {
    const api = await readFile(path.join(root, 'docs/api.md'), 'utf8');
    expect(api).toContain('<!-- example:latest-de -->');
    expect(await check(path.join(root, 'docs/api.md'))).toBe(0);
  }, 120_000);

  it('a block that differs from the build fails the check', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'readme-check-'));
    const copy = path.join(dir, 'README.md');
    const readme = await readFile(path.join(root, 'README.md'), 'utf8');
    await writeFile(
      copy,
      readme.replace('"compared_with": "trailing_base_rate_90d"', '"compared_with": "something_else"'),
    );
    expect(await check(copy)).toBe(1);
  }, 120_000);
});
