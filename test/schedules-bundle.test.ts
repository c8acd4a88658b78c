// The scheduled workflows run esbuild bundles (scripts/build-schedules.ts), not the TypeScript sources under tsx.
// These tests build the bundles fresh and run them as their own processes, offline (every source disabled), next to
// the tsx entry points at the same --now: the published tree must be the same, byte for byte, so bundling changes
// nothing a reader sees (JSON imports of the locales, preact JSX, data/ read from disk, the lazy S3 modules).
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEDULE_ENTRIES, buildSchedules } from '../scripts/build-schedules.ts';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NOW = '2026-11-21T12:00:00Z';
const CHILD_TIMEOUT_MS = 120_000;

/** Offline: an empty source variable disables that source, so no process reaches the network. */
const OFFLINE_ENV = {
  PATH: process.env.PATH ?? '',
  RESET_STATUS_PAGE_URL: '',
  RESET_UPSTREAM_URL: '',
  RESET_TIMELINE_URL: '',
  RESET_POST_EMBED_URL: '',
  RESET_SIGNAL_FEEDS: '',
  RESET_UPSTREAM_STATUS_URL: '',
};

async function tree(root: string, rel = ''): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const e of await readdir(path.join(root, rel), { withFileTypes: true })) {
    const r = path.join(rel, e.name);
    if (e.isDirectory()) for (const [k, v] of await tree(root, r)) out.set(k, v);
    else out.set(r, await readFile(path.join(root, r)));
  }
  return out;
}

function tick(argv: readonly string[], dir: string) {
  const args = [
    '--target',
    'local',
    '--now',
    NOW,
    '--out',
    path.join(dir, 'dist'),
    '--state-dir',
    path.join(dir, 'state'),
    '--data-dir',
    path.join(ROOT, 'data'),
  ];
  return run(process.execPath, [...argv, ...args], {
    cwd: ROOT,
    env: OFFLINE_ENV,
    timeout: CHILD_TIMEOUT_MS,
    maxBuffer: 16 * 1024 * 1024,
  });
}

describe('the esbuild bundles of the scheduled entry points', () => {
  let work: string;
  let bundles: string;

  beforeAll(async () => {
    // Inside the repository (test-output/ is ignored), like build/: node resolves any bare import the way it would there.
    await mkdir(path.join(ROOT, 'test-output'), { recursive: true });
    work = await mkdtemp(path.join(ROOT, 'test-output', 'schedules-bundle-'));
    bundles = path.join(work, 'build');
    await buildSchedules(bundles);
  }, CHILD_TIMEOUT_MS);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('writes one ESM file with a linked source map per entry point, importing nothing but Node built-ins', async () => {
    const files = (await readdir(bundles)).sort();
    expect(files).toEqual(
      Object.keys(SCHEDULE_ENTRIES)
        .flatMap((n) => [`${n}.mjs`, `${n}.mjs.map`])
        .sort(),
    );
    for (const name of Object.keys(SCHEDULE_ENTRIES)) {
      const js = await readFile(path.join(bundles, `${name}.mjs`), 'utf8');
      expect(js.trimEnd().endsWith(`//# sourceMappingURL=${name}.mjs.map`), name).toBe(true);
      // Everything is inside the one file: the job that runs it has no node_modules.
      const imports = [
        ...js.matchAll(/(?:^|[;\s])import\s*(?:[\w$]+|\*\s*as\s+[\w$]+|\{[^}]*\})?\s*(?:from)?\s*(["'])([^"']+)\1/gm),
      ].map((m) => m[2] ?? '');
      expect(imports.length, name).toBeGreaterThan(0);
      expect(
        imports.filter((i) => !i.startsWith('node:')),
        name,
      ).toEqual([]);
      const map = JSON.parse(await readFile(path.join(bundles, `${name}.mjs.map`), 'utf8')) as { sources: string[] };
      expect(
        map.sources.some((s) => s.endsWith(SCHEDULE_ENTRIES[name as keyof typeof SCHEDULE_ENTRIES])),
        name,
      ).toBe(true);
    }
  });

  it(
    'publishes, offline, the same dist/ byte for byte as the tsx entry point at the same --now (refresh and main)',
    async () => {
      const [bundled, sources, bundledMain] = await Promise.all([
        tick([path.join(bundles, 'refresh.mjs')], path.join(work, 'bundled')),
        tick(['--import', 'tsx', 'schedules/refresh.ts'], path.join(work, 'tsx')),
        tick([path.join(bundles, 'main.mjs')], path.join(work, 'bundled-main')),
      ]);
      // A bundle shares one import.meta.url across its modules: only the named entry runs (isEntryPoint), once.
      for (const r of [bundled, sources, bundledMain])
        expect(r.stdout.match(/^documents: /gm)?.length, r.stdout).toBe(1);
      expect(bundled.stdout.replaceAll(path.join(work, 'bundled'), '<dir>')).toBe(
        sources.stdout.replaceAll(path.join(work, 'tsx'), '<dir>'),
      );

      const a = await tree(path.join(work, 'bundled', 'dist'));
      const b = await tree(path.join(work, 'tsx', 'dist'));
      const c = await tree(path.join(work, 'bundled-main', 'dist'));
      expect(a.size).toBeGreaterThan(100);
      expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
      expect([...c.keys()].sort()).toEqual([...b.keys()].sort());
      const differing = [...b].filter(([k, v]) => !v.equals(a.get(k)!) || !v.equals(c.get(k)!)).map(([k]) => k);
      expect(differing).toEqual([]);
      // The page and the translated documents went through the bundled JSX and locale JSON.
      expect([...a.keys()].some((k) => k.endsWith('.html'))).toBe(true);
    },
    CHILD_TIMEOUT_MS,
  );

  it(
    'runs the backup CLI as the sources do: same exit code and message for a run without its bucket',
    async () => {
      const fail = (argv: string[]) =>
        run(process.execPath, [...argv, 'list'], { cwd: ROOT, env: OFFLINE_ENV, timeout: CHILD_TIMEOUT_MS }).then(
          () => null,
          (e: { code: number; stdout: string; stderr: string }) => ({
            code: e.code,
            stdout: e.stdout,
            stderr: e.stderr,
          }),
        );
      const [bundled, sources] = await Promise.all([
        fail([path.join(bundles, 'backup.mjs')]),
        fail(['--import', 'tsx', 'schedules/backup.ts']),
      ]);
      expect(sources?.code).toBe(2);
      expect(sources?.stderr).toMatch(/RESET_S3_BUCKET/);
      expect(bundled).toEqual(sources);
    },
    CHILD_TIMEOUT_MS,
  );

  it(
    'names the TypeScript source in a stack trace under --enable-source-maps, and keeps the entry exports',
    async () => {
      // Imported (not run: argv[1] is not the bundle), the entry's exports are there; a null summary throws inside
      // formatStepSummary, and with the flag the workflows give, the trace points into schedules/refresh.ts.
      const probe = `const m = await import(${JSON.stringify(path.join(bundles, 'refresh.mjs'))}); m.formatStepSummary(null, 'x');`;
      const err = await run(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', probe], {
        cwd: ROOT,
        env: OFFLINE_ENV,
        timeout: CHILD_TIMEOUT_MS,
      }).then(
        () => null,
        (e: { code: number; stderr: string }) => e,
      );
      expect(err?.code).toBe(1);
      expect(err?.stderr).toMatch(
        /^TypeError: Cannot read properties of null \(reading 'asOf'\)\n {4}at (?:Module\.)?formatStepSummary \(.*schedules[\\/]refresh\.ts:\d+:\d+\)/m,
      );
    },
    CHILD_TIMEOUT_MS,
  );
});
