// What a release of `reset-status` ships, checked the way a user gets it. `npm pack` lists exactly the files the package
// needs (the bin, the typed client's sources and what they import, package.json, the README): an extra file or a
// missing one fails. The package staged as the release workflow stages it (scripts/pack-client.ts: a default API URL
// baked in) is packed, and the tarball installed offline into an empty folder, its dependencies taken from the npm
// cache `npm ci` filled at the versions the repository's lockfile pins. The installed bin answers --help and today's
// question from the real preview of a real build, with --base-url and with the baked URL alone; the typed client, from
// its shipped sources, answers too.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPreview, type PreviewServer } from '../../builder/edge/preview.ts';
import { CLIENT_DIR, npmPack, releaseInputs, stageClient, type PackResult } from '../../scripts/pack-client.ts';
import { createTempBuild, startLoopback, trackerHandler } from '../helpers/build.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const REPOSITORY = 'https://github.com/example/reset-status-api';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      { cwd: opts.cwd, env: opts.env ?? process.env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

/** The files the package needs: package.json, the README, its bins, and the typed client's sources with what they import. */
async function neededFiles(pkgDir: string): Promise<string[]> {
  const pkg = JSON.parse(await readFile(path.join(pkgDir, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  const files = new Set(['package.json', 'README.md', ...Object.values(pkg.bin).map((b) => path.posix.normalize(b))]);
  const queue = ['src/client.ts'];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const f of ts.preProcessFile(await readFile(path.join(pkgDir, file), 'utf8'), true, true).importedFiles)
      if (f.fileName.startsWith('.'))
        queue.push(path.posix.normalize(path.posix.join(path.posix.dirname(file), f.fileName)));
  }
  return [...files].sort();
}

interface LockEntry {
  link?: boolean;
  optional?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [field: string]: unknown;
}

/**
 * A lockfile for a folder whose one dependency is the packed tarball: the package's dependency tree exactly as the
 * repository's lockfile resolves it for the clients/ workspace (clients/node_modules/… nested under the package, the
 * hoisted rest where it is), so `npm ci --offline` needs nothing but the tarballs `npm ci` put in the cache.
 */
async function lockForTarball(tarball: string, integrity: string): Promise<object> {
  const lock = JSON.parse(await readFile(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const at = (loc: string): LockEntry | undefined => (lock.packages[loc]?.link ? undefined : lock.packages[loc]);
  /** Where Node finds `name` from the package at `from`: its own node_modules, then each one above. */
  const resolve = (from: string, name: string): string | null => {
    for (let dir = from; ;) {
      const loc = `${dir === '' ? '' : `${dir}/`}node_modules/${name}`;
      if (at(loc)) return loc;
      if (dir === '') return null;
      const up = dir.lastIndexOf('/node_modules/');
      dir = up === -1 ? '' : dir.slice(0, up);
    }
  };
  const closure = new Set<string>();
  const queue = ['clients'];
  while (queue.length > 0) {
    const loc = queue.pop()!;
    if (closure.has(loc)) continue;
    closure.add(loc);
    const e = at(loc)!;
    const wanted = [
      ...Object.keys(e.dependencies ?? {}).map((n) => [n, false] as const),
      ...Object.keys(e.optionalDependencies ?? {}).map((n) => [n, true] as const),
      ...Object.keys(e.peerDependencies ?? {}).map((n) => [n, e.peerDependenciesMeta?.[n]?.optional === true] as const),
    ];
    for (const [name, optional] of wanted) {
      const found = resolve(loc, name);
      if (found !== null) queue.push(found);
      else if (!optional) throw new Error(`package-lock.json resolves no ${name} for ${loc}`);
    }
  }
  const file = `file:${path.basename(tarball)}`;
  const packages: Record<string, unknown> = { '': { dependencies: { 'reset-status': file } } };
  for (const loc of [...closure].sort()) {
    const { dev: _dev, devOptional: _devOptional, peer: _peer, ...entry } = at(loc)!;
    if (loc === 'clients') packages['node_modules/reset-status'] = { ...entry, resolved: file, integrity };
    else packages[loc.replace(/^clients\//, 'node_modules/reset-status/')] = entry;
  }
  return { name: 'reset-status-install', lockfileVersion: 3, requires: true, packages };
}

const reportLines: string[] = [];
let preview: PreviewServer;
let tracker: { close(): Promise<void> };
let packed: PackResult;
let staged: string;
let installDir: string;
let bin: string;
/** The environment of a user's shell: no API URL from the environment, no colour, an English locale. */
let userEnv: Record<string, string>;

beforeAll(async () => {
  // A real build by the real pipeline with a global reset recorded a minute ago, served by the real preview.
  const now = Date.now();
  const upstream = await startLoopback(
    trackerHandler(() => [
      {
        id: 'pack-reset',
        reset_type: 'regular',
        announced_at: new Date(now - 60_000).toISOString(),
        text: 'Codex limits reset for everyone.',
        source: { type: 'observed', url: 'https://tracker.example/claims/pack-reset' },
      },
    ]),
  );
  tracker = upstream;
  const build = await createTempBuild({ edgeStore: true });
  await build.build(new Date(now).toISOString(), [
    { id: 'reset-tracker', kind: 'reset_tracker', url: `${upstream.url}/api/v1/resets` },
  ]);
  preview = await startPreview({ root: build.outDir, port: 0 });

  const work = await mkdtemp(path.join(tmpdir(), 'rs-pack-'));
  staged = path.join(work, 'package');
  await stageClient(staged, { apiUrl: preview.url, repository: REPOSITORY });
  packed = await npmPack(staged, work);

  installDir = await mkdtemp(path.join(tmpdir(), 'rs-install-'));
  const tarball = path.join(installDir, path.basename(packed.tarball));
  await writeFile(tarball, await readFile(packed.tarball));
  await writeFile(
    path.join(installDir, 'package.json'),
    JSON.stringify({
      name: 'reset-status-install',
      private: true,
      type: 'module',
      dependencies: { 'reset-status': `file:${path.basename(tarball)}` },
    }),
  );
  await writeFile(
    path.join(installDir, 'package-lock.json'),
    JSON.stringify(await lockForTarball(tarball, packed.integrity)),
  );
  const install = await run('npm', ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: installDir });
  if (install.code !== 0) throw new Error(`npm ci --offline of the packed tarball failed:\n${install.stderr}`);
  bin = path.join(installDir, 'node_modules/.bin/reset-status');
  userEnv = { PATH: process.env.PATH ?? '', HOME: installDir, NO_COLOR: '1', LANG: 'C' };
}, 180_000);

afterAll(async () => {
  await preview?.close();
  await tracker?.close();
  // The CI log shows what a release would ship (.ci/run).
  if (reportLines.length > 0) console.log(reportLines.join('\n'));
});

describe('the reset-status package', () => {
  it('npm pack lists exactly the files the package needs, from the repository and as a release stages it', async () => {
    const needed = await neededFiles(CLIENT_DIR);
    expect(needed).toEqual(
      expect.arrayContaining(['dist/reset-status.js', 'src/client.ts', 'src/api.d.ts', 'src/api-url.ts']),
    );
    const repo = await npmPack(CLIENT_DIR, await mkdtemp(path.join(tmpdir(), 'rs-pack-dry-')), true);
    expect(repo.files.map((f) => f.path)).toEqual(needed);
    expect(packed.files.map((f) => f.path)).toEqual(needed);
    reportLines.push(
      `reset-status ${path.basename(packed.tarball)}: ${packed.size} bytes packed, ${packed.unpackedSize} unpacked`,
      ...packed.files.map((f) => `  ${String(f.size).padStart(8)}  ${f.path}`),
    );
  });

  it('a release names its repository (npm checks the provenance statement against it) and bakes in its API', async () => {
    const pkg = JSON.parse(await readFile(path.join(staged, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(pkg.repository).toEqual({ type: 'git', url: `git+${REPOSITORY}.git`, directory: 'clients' });
    expect(await readFile(path.join(staged, 'src/api-url.ts'), 'utf8')).toContain(
      `PRODUCTION_API_URL: string | null = ${JSON.stringify(preview.url)};`,
    );
    // The repository's own copy names none.
    const own = await readFile(path.join(CLIENT_DIR, 'src/api-url.ts'), 'utf8');
    expect(own).toContain('PRODUCTION_API_URL: string | null = null;');
  });

  it('installed offline from the tarball, the bin runs: --help names the baked-in API', async () => {
    const help = await run(bin, ['--help'], { env: userEnv });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: reset-status \[command\] \[options\]\n/);
    expect(help.stdout).toContain(`API without --base-url or RESET_STATUS_API_URL: ${preview.url}\n`);
    expect(help.stdout).toContain('Exit codes: 0 answered, 2 unknown or stale, 1 error.');
  });

  it('answers today from the preview of a real build: yes, a global reset was recorded today, exit 0', async () => {
    const latest = (await (await fetch(`${preview.url}/api/latest`)).json()) as {
      reset: boolean | null;
      today: { state: string; explanation: string };
    };
    // The build's own answer: the tracker's record of a reset a minute ago, not verified.
    expect(latest.reset).toBe(true);
    expect(latest.today.state).toBe('recorded_today');
    const viaFlag = await run(bin, ['today', '--base-url', preview.url], { env: userEnv });
    expect(viaFlag.stderr).toBe('');
    expect(viaFlag.code).toBe(0);
    expect(viaFlag.stdout).toMatch(/^Yes: Codex usage limits were reset today/);
    expect(viaFlag.stdout).toContain(latest.today.explanation);
    // The answer on one line, then the credit the tracker whose record it is asks for.
    expect(viaFlag.stdout.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^Yes: /),
      'Data: codex-resets.com (https://codex-resets.com/)',
    ]);
    const json = await run(bin, ['today', '--json', '--base-url', preview.url], { env: userEnv });
    expect(JSON.parse(json.stdout)).toMatchObject({ answer: 'yes', reset: true, stale: false });
    reportLines.push(`offline install: reset-status today --base-url ${preview.url} (exit ${viaFlag.code})`);
    reportLines.push(`  ${viaFlag.stdout.trimEnd()}`);
  });

  it('answers without --base-url or RESET_STATUS_API_URL from the URL the release baked in', async () => {
    const r = await run(bin, [], { env: userEnv });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Yes: Codex usage limits were reset today/);
    // The environment still wins over the baked-in URL: a port nothing listens on is an error, exit 1.
    const down = await startLoopback(() => undefined);
    await down.close();
    const overridden = await run(bin, ['--timeout', '2000'], { env: { ...userEnv, RESET_STATUS_API_URL: down.url } });
    expect(overridden.code).toBe(1);
    expect(overridden.stderr).toContain(down.url);
  });

  it('the typed client runs from the shipped sources (with tsx, as clients/README.md says) with the baked-in URL', async () => {
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    const script =
      "import { createResetStatusClient, trustedReset } from 'reset-status/src/client.ts';\n" +
      'console.log(trustedReset(await createResetStatusClient().latest()));\n';
    await writeFile(path.join(installDir, 'typed.ts'), script);
    const r = await run(process.execPath, ['--import', tsx, 'typed.ts'], { cwd: installDir, env: userEnv });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('true\n');
  });
});

describe('scripts/pack-client.ts, the release’s inputs', () => {
  const version = async () =>
    (JSON.parse(await readFile(path.join(CLIENT_DIR, 'package.json'), 'utf8')) as { version: string }).version;
  const env = { RESET_PUBLIC_BASE_URL: 'https://api.example.org/' };

  it('takes the tag of clients/package.json’s version, the repository’s https URL and the production https URL', async () => {
    const tag = `reset-status-v${await version()}`;
    expect(await releaseInputs(env, tag, REPOSITORY)).toEqual({
      apiUrl: 'https://api.example.org',
      version: await version(),
      repository: REPOSITORY,
    });
  });

  it('refuses a tag of another version, a repository that is not an https URL, and an API URL a reader cannot use', async () => {
    const tag = `reset-status-v${await version()}`;
    await expect(releaseInputs(env, 'reset-status-v99.0.0', REPOSITORY)).rejects.toThrow(
      /does not name clients\/package.json's version/,
    );
    await expect(releaseInputs(env, `v${await version()}`, REPOSITORY)).rejects.toThrow(/does not name/);
    await expect(releaseInputs(env, tag, 'example/reset-status-api')).rejects.toThrow(/--repository must be/);
    for (const bad of [
      undefined,
      '',
      'http://api.example.org',
      'https://127.0.0.1:8080',
      'https://u:p@api.example.org',
      'https://api.example.org/?k=v',
    ])
      await expect(releaseInputs({ RESET_PUBLIC_BASE_URL: bad }, tag, REPOSITORY), String(bad)).rejects.toThrow(
        /RESET_PUBLIC_BASE_URL must be/,
      );
  });

  it('as a command, stops with exit 2 naming the variable before it writes anything', async () => {
    const out = path.join(await mkdtemp(path.join(tmpdir(), 'rs-release-')), 'npm');
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    const r = await run(
      process.execPath,
      [
        '--import',
        tsx,
        path.join(ROOT, 'scripts/pack-client.ts'),
        '--tag',
        `reset-status-v${await version()}`,
        '--repository',
        REPOSITORY,
        '--out',
        out,
      ],
      { env: { PATH: process.env.PATH ?? '' } },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('pack-client: [release]');
    expect(r.stderr).toContain('RESET_PUBLIC_BASE_URL');
    await expect(readFile(path.join(out, 'package/package.json'))).rejects.toThrow(/ENOENT/);
  });
});
