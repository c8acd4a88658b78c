// The statusline's disk cache (the committed bin in a child process, against a loopback API that counts requests):
// where it lives, and that a folder someone else owns or may write, a symlink in its place, a symlink planted at an
// entry's temporary or final name, or a tampered entry are never written through or believed; the answer is printed
// all the same, at the cost of a request.
import { chmod, chown, lstat, mkdir, mkdtemp, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type Run } from './fixture.ts';
import { startHostileApi, type HostileApi } from './hostile.ts';

let api: HostileApi;
const uid = process.getuid!();
/** Another user's uid for a folder that is not ours (the tests run as root, which may chown). */
const OTHER_UID = 65534;
const VICTIM = 'a file of the user’s, not to be overwritten\n';

beforeAll(async () => {
  api = await startHostileApi();
});
afterAll(async () => api?.close());

const scratch = () => mkdtemp(path.join(os.tmpdir(), 'rs-cache-test-'));

/** `statusline` with no home and no XDG_CACHE_HOME: its cache is `<TMPDIR>/reset-status-<uid>`. */
async function statusline(env: Record<string, string>): Promise<Run & { requests: number }> {
  const before = api.requests.length;
  const r = await runCli(['statusline'], { RESET_STATUS_API_URL: api.url, ...env });
  return { ...r, requests: api.requests.length - before };
}

/** Answered (the cache's fault only costs a request) with the hostile API's yes. */
const answered = (r: Run) => {
  expect(r.stdout).toBe('codex ↺ today\n');
  expect(r.code).toBe(0);
};

describe('where the statusline cache lives', () => {
  it('under XDG_CACHE_HOME, else ~/.cache/reset-status, created 0700 with entries 0600: a second call costs no request', async () => {
    const xdg = await scratch();
    expect((await statusline({ XDG_CACHE_HOME: xdg })).requests).toBe(1);
    const a = await statusline({ XDG_CACHE_HOME: xdg });
    answered(a);
    expect(a.requests).toBe(0);
    const dir = path.join(xdg, 'reset-status');
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const files = await readdir(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/\.json$/);
    expect((await stat(path.join(dir, files[0]!))).mode & 0o777).toBe(0o600);

    const home = await scratch();
    answered(await statusline({ HOME: home }));
    expect(await readdir(path.join(home, '.cache', 'reset-status'))).toHaveLength(1);
  });

  it('without a home, a folder of its own in the temporary folder, made fresh with mode 0700', async () => {
    const tmp = await scratch();
    const first = await statusline({ TMPDIR: tmp });
    answered(first);
    expect(first.stderr).toBe('');
    const dir = path.join(tmp, `reset-status-${uid}`);
    const st = await lstat(dir);
    expect([st.isDirectory(), st.uid, st.mode & 0o777]).toEqual([true, uid, 0o700]);
    expect((await statusline({ TMPDIR: tmp })).requests).toBe(0);
  });
});

describe('a cache folder or entry that is not safely the user’s is refused, and the answer still printed', () => {
  /** Two calls through a refused folder: both answered, both asked the API, a one-line note each, nothing written. */
  async function refused(tmp: string, why: RegExp) {
    for (let i = 0; i < 2; i++) {
      const r = await statusline({ TMPDIR: tmp });
      answered(r);
      expect(r.requests).toBe(1);
      expect(r.stderr.trimEnd()).toMatch(why);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
  }

  it('a world-writable folder at the temporary path', async () => {
    const tmp = await scratch();
    const dir = path.join(tmp, `reset-status-${uid}`);
    await mkdir(dir);
    await chmod(dir, 0o777);
    await refused(tmp, /^reset-status: not using the cache folder .*: others may write to it \(mode 777\)$/);
    expect(await readdir(dir)).toEqual([]);
    const groupWritable = path.join(await scratch(), `reset-status-${uid}`);
    await mkdir(groupWritable);
    await chmod(groupWritable, 0o770);
    await refused(path.dirname(groupWritable), /others may write to it \(mode 770\)/);
    expect(await readdir(groupWritable)).toEqual([]);
  });

  it.skipIf(uid !== 0)('a folder owned by another user (even one with mode 0700)', async () => {
    const tmp = await scratch();
    const dir = path.join(tmp, `reset-status-${uid}`);
    await mkdir(dir, { mode: 0o700 });
    await chown(dir, OTHER_UID, OTHER_UID);
    await refused(tmp, new RegExp(`it is owned by uid ${OTHER_UID}, not ${uid}`));
    expect(await readdir(dir)).toEqual([]);
  });

  it('a symlink at the folder’s path, to a folder of the user’s', async () => {
    const tmp = await scratch();
    const target = await scratch();
    await symlink(target, path.join(tmp, `reset-status-${uid}`));
    await refused(tmp, /it is a symbolic link/);
    expect(await readdir(target)).toEqual([]);
  });

  it('a symlink planted at an entry’s temporary name is never followed; one at the entry’s name is neither read nor written through', async () => {
    // The entry's file name, as the bin chooses it, from a first call in a folder of its own.
    const probe = await scratch();
    answered(await statusline({ RESET_STATUS_CACHE_DIR: probe }));
    const [entry] = await readdir(probe);
    const victimDir = await scratch();
    const victim = path.join(victimDir, 'victim');
    await writeFile(victim, VICTIM);

    const dir = await scratch();
    await symlink(victim, path.join(dir, `${entry}.tmp`));
    const r = await statusline({ RESET_STATUS_CACHE_DIR: dir });
    answered(r);
    expect(r.stderr).toBe('');
    expect(await readFile(victim, 'utf8')).toBe(VICTIM);
    expect((await lstat(path.join(dir, `${entry}.tmp`))).isSymbolicLink()).toBe(true);
    expect(await readdir(dir)).toEqual([`${entry}.tmp`]); // nothing cached: the next call asks again
    expect((await statusline({ RESET_STATUS_CACHE_DIR: dir })).requests).toBe(1);

    // At the entry's own name, a link to a file holding a well-formed entry that says "no reset": not believed.
    const planted = JSON.parse(await readFile(path.join(probe, entry!), 'utf8')) as { body: string; storedAt: number };
    const body = JSON.parse(planted.body) as { reset: boolean | null };
    body.reset = false;
    const forged = JSON.stringify({ ...planted, body: JSON.stringify(body), storedAt: Date.now() });
    await writeFile(victim, forged);
    const dir2 = await scratch();
    await symlink(victim, path.join(dir2, entry!));
    const r2 = await statusline({ RESET_STATUS_CACHE_DIR: dir2 });
    answered(r2); // "no reset" had it read the link
    expect(r2.requests).toBe(1);
    expect(await readFile(victim, 'utf8')).toBe(forged);
    expect((await lstat(path.join(dir2, entry!))).isFile()).toBe(true); // the link replaced, not written through
  });

  it('an entry that fails its checks is not used: the API is asked again', async () => {
    const dir = await scratch();
    answered(await statusline({ RESET_STATUS_CACHE_DIR: dir }));
    const [entry] = await readdir(dir);
    const file = path.join(dir, entry!);
    const good = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    const now = Date.now();
    const tampered = [
      { ...good, storedAt: now, body: '{"reset":false}' }, // not a latest document
      {
        ...good,
        storedAt: now,
        body: '{"reset":"no","meta":{"stale_after":"2999-01-01T00:00:00Z"},"today":{"explanation":""}}',
      },
      { ...good, storedAt: 'now' },
      { ...good, storedAt: now, url: 'http://elsewhere/api/latest' }, // another URL's entry
    ].map((e) => JSON.stringify(e));
    for (const bad of [...tampered, 'not json']) {
      await writeFile(file, bad);
      const r = await statusline({ RESET_STATUS_CACHE_DIR: dir });
      answered(r);
      expect(r.requests).toBe(1);
    }
  });
});
