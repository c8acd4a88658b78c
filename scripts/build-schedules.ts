// Bundles each scheduled entry point (and the build command) into one ESM file for Node 20 with a source map, so the
// scheduled workflows run plain `node build/<name>.mjs` instead of transpiling the builder with
// tsx on every tick. The workflow builds the bundles right before the run from the checked-out sources (never a
// committed copy that could be stale); esbuild is already in that job, as tsx's own dependency. See BENCHMARKS.md.
//   tsx scripts/build-schedules.ts [--out build]    write build/{refresh,backup,main}.mjs (+ .map) and print sizes
import { readFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';
import { computePublishedSchemas } from '../builder/render/published-schemas.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SCHEDULE_BUILD_DIR = path.join(ROOT, 'build');

/** Output name (without `.mjs`) → entry module. The name is also what the entry's isEntryPoint guard expects. */
export const SCHEDULE_ENTRIES = {
  refresh: 'schedules/refresh.ts',
  backup: 'schedules/backup.ts',
  main: 'builder/main.ts',
} as const;

/**
 * Nothing is left external, the AWS SDK included. Only S3 runs use it (builder/main.ts imports it dynamically), but
 * esbuild hoists an external package's import to the top of a one-file bundle, so an external SDK is loaded from
 * node_modules by every tick, offline ones too; bundled, its modules sit in lazy wrappers that run only when an S3
 * run reaches them. Measured side by side (BENCHMARKS.md): bundled 1.06 s CPU per offline tick, external 1.17 s.
 */
export const SCHEDULE_EXTERNAL: readonly string[] = [];

/**
 * CommonJS dependencies bundled into an ES module still call require() for Node built-ins; esbuild's shim throws
 * for that, so each bundle gets a real require bound to its own URL. The name avoids any module's own binding.
 */
const REQUIRE_BANNER = "import { createRequire as __rsaCreateRequire } from 'node:module';\nconst require = __rsaCreateRequire(import.meta.url);";

/**
 * ical-generator 10's foldLines measures each character's UTF-8 length with `new TextEncoder().encode(ch).length`: an
 * encoder and an array per character of the calendar, most of a tick's calendar time. Buffer.byteLength gives the same
 * length for every string (a lone surrogate counts as the 3 bytes of U+FFFD in both), without allocating. Version 11
 * fixed it but needs Node 22 (DESIGN.md), so the bundle carries this one-expression patch; a version without the
 * expression fails the build, so the patch is removed rather than silently skipped. test/schedules-bundle-patch.test.ts
 * compares the patched library's calendars with the unpatched one's.
 */
export const ICAL_FOLD_PATCH = {
  file: /[\\/]node_modules[\\/]ical-generator[\\/]dist[\\/]index\.mjs$/,
  find: /new TextEncoder\(\)\.encode\((\w+)\)\.length/g,
  replace: 'Buffer.byteLength($1, "utf8")',
} as const;

/**
 * And a fast path in front of foldLines' per-character loop: a line without surrogates whose UTF-8 length is at most
 * 74 octets never reaches the loop's fold (its running count only grows to the line's length), so it is returned as
 * it is; about 90% of a calendar's lines. Same rule: a version without the expression fails the build.
 */
export const ICAL_SHORT_LINE_PATCH = {
  find: /\.map\(function\((\w+)\)\{let (\w+)=``,(\w+)=0;for\(/g,
  replace: '.map(function($1){if(!/[\\ud800-\\udfff]/.test($1)&&Buffer.byteLength($1,"utf8")<=74)return $1;let $2=``,$3=0;for(',
} as const;

/**
 * A plugin that rewrites one dependency file as esbuild loads it. `rewrite` throws when the file is not what the
 * patch expects, so a changed dependency fails the build instead of being bundled unpatched.
 */
function sourcePatch(name: string, file: RegExp, rewrite: (source: string, where: string) => string): esbuild.Plugin {
  return {
    name,
    setup(build) {
      build.onLoad({ filter: file }, async (args) => ({ contents: rewrite(await readFile(args.path, 'utf8'), args.path), loader: 'js', resolveDir: path.dirname(args.path) }));
    },
  };
}

/** Throws unless `find` occurs `count` times in `source` (a string, or a global RegExp). */
function expectOccurrences(source: string, find: string | RegExp, count: number, where: string, what: string, patch: string): void {
  const found = typeof find === 'string' ? source.split(find).length - 1 : (source.match(find)?.length ?? 0);
  if (found !== count) throw new Error(`[build-schedules] ${where}: expected ${what} ${count} time(s), found it ${found} times; update or drop ${patch}`);
}

const icalFoldPatch = sourcePatch('ical-fold-patch', ICAL_FOLD_PATCH.file, (source, where) => {
  expectOccurrences(source, ICAL_FOLD_PATCH.find, 1, where, "foldLines' TextEncoder call", 'ICAL_FOLD_PATCH');
  expectOccurrences(source, ICAL_SHORT_LINE_PATCH.find, 1, where, "foldLines' per-line function", 'ICAL_SHORT_LINE_PATCH');
  return source.replace(ICAL_FOLD_PATCH.find, ICAL_FOLD_PATCH.replace).replace(ICAL_SHORT_LINE_PATCH.find, ICAL_SHORT_LINE_PATCH.replace);
});

/**
 * zod's classic API re-exports its ~60 error-message locales (`z.locales`, 300 KiB of the bundle) though zod itself
 * configures English and the builder never switches: in the bundle every other locale is a function that throws, so
 * Node has that much less to compile at every tick. A zod whose locale index is no longer the list of
 * `export { default as <name> } from "./<file>.js"` lines it was fails the build instead of bundling them all again.
 * test/schedules-bundle-patch.test.ts checks that zod's messages stay the library's own.
 */
export const ZOD_LOCALES_PATCH = {
  file: /[\\/]node_modules[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/,
  line: /^export \{ default as (\w+) \} from "\.\/([\w-]+)\.js";$/,
  keep: 'en',
} as const;

const zodLocalesPatch = sourcePatch('zod-locales-english-only', ZOD_LOCALES_PATCH.file, (source, where) => {
  const lines = source.split('\n').filter((l) => l.trim() !== '');
  const names = lines.map((l) => l.match(ZOD_LOCALES_PATCH.line)?.[1]);
  if (names.some((n) => n === undefined) || !names.includes(ZOD_LOCALES_PATCH.keep)) {
    throw new Error(`[build-schedules] ${where}: not the list of locale re-exports ZOD_LOCALES_PATCH expects; update or drop the patch`);
  }
  return lines
    .map((l, i) => (names[i] === ZOD_LOCALES_PATCH.keep ? l : `export const ${names[i]} = () => { throw new Error("zod locale ${names[i]} is not in this bundle (scripts/build-schedules.ts)"); };`))
    .join('\n');
});

/**
 * anafanafo (badge-maker's text widths) builds a width table for each of its four fonts when it is loaded, parsing
 * ~220 KiB of JSON each, at every tick; badge-maker's flat badges measure in one of them. In the bundle each table is
 * built the first time its font is measured. A version without the four `'<font>': createConsumer(require(...))`
 * entries fails the build. test/schedules-bundle-patch.test.ts compares the badges with the unpatched library's.
 */
export const FONT_TABLES_PATCH = {
  file: /[\\/]node_modules[\\/]anafanafo[\\/]index\.js$/,
  find: /('[^'\n]+'):\s*createConsumer\(\s*(require\('[^'\n]+'\))\s*\)/g,
  count: 4,
  replace: 'get $1() { const c = createConsumer($2); Object.defineProperty(consumers, $1, { value: c, enumerable: true }); return c; }',
} as const;

const fontTablesPatch = sourcePatch('font-tables-on-first-use', FONT_TABLES_PATCH.file, (source, where) => {
  expectOccurrences(source, FONT_TABLES_PATCH.find, FONT_TABLES_PATCH.count, where, 'a font table built at load', 'FONT_TABLES_PATCH');
  return source.replace(FONT_TABLES_PATCH.find, FONT_TABLES_PATCH.replace);
});

/**
 * A dependency's large JSON data (badge-maker's font-width tables through anafanafo: four of ~220 KiB, all built at
 * import) goes into the bundle as `JSON.parse('…')` instead of a JavaScript literal: V8 parses JSON text several times
 * faster, and the value is the same.
 */
export const JSON_AS_PARSE_MIN_BYTES = 64 * 1024;

const largeJsonAsParse: esbuild.Plugin = {
  name: 'large-json-as-parse',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/].*\.json$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (text.length < JSON_AS_PARSE_MIN_BYTES) return undefined;
      return { contents: `module.exports = JSON.parse(${JSON.stringify(JSON.stringify(JSON.parse(text)))});`, loader: 'js' };
    });
  },
};

/**
 * A Node built-in that an ES module of the bundle imports is bound through the bundle's require() instead, as the
 * CommonJS dependencies' built-ins already are. Node builds an ES module facade for each imported built-in, and
 * building it reads every export, lazy getters included: `fs.ReadStream` loaded fs's streams and `process.stdout`
 * opened the stream before anything was written: ~20 ms of a tick in a CPU profile, within the bench's noise
 * (BENCHMARKS.md 1a). Each use of a named import reads the property of the same module object.
 * test/schedules-bundle.test.ts checks that no bundle imports a built-in but node:module (the banner's own).
 */
const BUILTINS_NAMESPACE = 'rsa-builtin';

const builtinsThroughRequire: esbuild.Plugin = {
  name: 'builtins-through-require',
  setup(build) {
    build.onResolve({ filter: /^[a-z_:/0-9]+$/ }, (args) => (args.kind === 'import-statement' && isBuiltin(args.path) ? { path: args.path.startsWith('node:') ? args.path : `node:${args.path}`, namespace: BUILTINS_NAMESPACE } : undefined));
    build.onLoad({ filter: /.*/, namespace: BUILTINS_NAMESPACE }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: 'js' }));
  },
};

export function scheduleBuildOptions(outDir: string): esbuild.BuildOptions {
  return {
    // The JSON Schemas and the OpenAPI components depend on the code alone (builder/render/published-schemas.ts):
    // computed here once, not by every tick. test/schedules-bundle.test.ts compares the published bytes with tsx's.
    define: { RSA_PUBLISHED_SCHEMAS: JSON.stringify(JSON.stringify(computePublishedSchemas())) },
    absWorkingDir: ROOT,
    entryPoints: Object.entries(SCHEDULE_ENTRIES).map(([out, entry]) => ({ in: entry, out })),
    outdir: outDir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    // One file per entry: the dynamic imports (S3 targets) are inlined rather than split into shared chunks.
    splitting: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: [...SCHEDULE_EXTERNAL],
    // tsconfig.json supplies the JSX settings (react-jsx, jsxImportSource preact).
    tsconfig: path.join(ROOT, 'tsconfig.json'),
    sourcemap: 'linked',
    // The bundle maps its own stack traces, reading the map only when a trace is formatted: the workflows run it
    // without --enable-source-maps, whose reading of the map at every start cost ~14% of the import.
    inject: [path.join(ROOT, 'scripts/bundle-stack-traces-inject.ts')],
    // Stack traces need only the mappings: the sources' text (60% of the map) is on disk, and Node read and kept all
    // 9 MB of it at every start.
    sourcesContent: false,
    // No whitespace or comments; names stay. Comments carried non-ASCII characters (zod's locales among them), which
    // made Node decode the whole 5 MB file into a two-byte string; now it is ASCII (esbuild escapes non-ASCII in
    // strings).
    minifyWhitespace: true,
    plugins: [builtinsThroughRequire, icalFoldPatch, zodLocalesPatch, fontTablesPatch, largeJsonAsParse],
    banner: { js: REQUIRE_BANNER },
    legalComments: 'none',
    logLevel: 'silent',
    metafile: true,
  };
}

/** Builds every bundle into outDir; returns each output file with its size in bytes. */
export async function buildSchedules(outDir: string = SCHEDULE_BUILD_DIR): Promise<{ file: string; bytes: number }[]> {
  const result = await esbuild.build(scheduleBuildOptions(outDir));
  if (result.errors.length > 0) throw new Error(`[build-schedules] esbuild failed: ${result.errors.map((e) => e.text).join('; ')}`);
  return Object.entries(result.metafile?.outputs ?? {})
    .map(([file, o]) => ({ file: path.relative(ROOT, path.resolve(ROOT, file)), bytes: o.bytes }))
    .sort((a, b) => a.file.localeCompare(b.file));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { out: { type: 'string', default: SCHEDULE_BUILD_DIR } }, strict: true });
  try {
    for (const { file, bytes } of await buildSchedules(path.resolve(values.out))) console.log(`${file}  ${(bytes / 1024).toFixed(1)} KiB`);
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    process.exitCode = 1;
  }
}
