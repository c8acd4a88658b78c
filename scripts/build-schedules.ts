// Bundles each scheduled entry point (and the build command) into one ESM file with a linked source map, so the
// scheduled workflows run plain `node --enable-source-maps build/<name>.mjs` on a machine where nothing is installed.
// The workflows build the bundles from the checked-out sources in a job without credentials and hand them over.
//   tsx scripts/build-schedules.ts [--out build]    write build/{refresh,backup,main}.mjs (+ .map) and print sizes
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SCHEDULE_BUILD_DIR = path.join(ROOT, 'build');

/** Output name (without `.mjs`) → entry module. The name is also what the entry's isEntryPoint guard expects. */
export const SCHEDULE_ENTRIES = {
  refresh: 'schedules/refresh.ts',
  backup: 'schedules/backup.ts',
  main: 'builder/main.ts',
} as const;

/**
 * CommonJS dependencies bundled into an ES module still call require() for Node built-ins; esbuild's shim throws
 * for that, so each bundle gets a real require bound to its own URL. The name avoids any module's own binding.
 */
const REQUIRE_BANNER =
  "import { createRequire as __rsaCreateRequire } from 'node:module';\nconst require = __rsaCreateRequire(import.meta.url);";

/** Builds every bundle into outDir; returns each output file with its size in bytes. */
export async function buildSchedules(outDir: string = SCHEDULE_BUILD_DIR): Promise<{ file: string; bytes: number }[]> {
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: Object.entries(SCHEDULE_ENTRIES).map(([out, entry]) => ({ in: entry, out })),
    outdir: outDir,
    outExtension: { '.js': '.mjs' },
    // Everything inside, the AWS SDK included: the job that runs a bundle installs no package.
    bundle: true,
    // One file per entry: the dynamic imports (S3 targets) are inlined rather than split into shared chunks.
    splitting: false,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    // tsconfig.json supplies the JSX settings (react-jsx, jsxImportSource preact).
    tsconfig: path.join(ROOT, 'tsconfig.json'),
    // Traces name the TypeScript sources under --enable-source-maps; the map needs no copy of their text.
    sourcemap: 'linked',
    sourcesContent: false,
    banner: { js: REQUIRE_BANNER },
    legalComments: 'none',
    logLevel: 'silent',
    metafile: true,
  });
  // esbuild.build rejects on any error, so what resolves is a complete build.
  return Object.entries(result.metafile?.outputs ?? {})
    .map(([file, o]) => ({ file: path.relative(ROOT, path.resolve(ROOT, file)), bytes: o.bytes }))
    .sort((a, b) => a.file.localeCompare(b.file));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { out: { type: 'string', default: SCHEDULE_BUILD_DIR } }, strict: true });
  for (const { file, bytes } of await buildSchedules(path.resolve(values.out)))
    console.log(`${file}  ${(bytes / 1024).toFixed(1)} KiB`);
}
