// Bundles the CloudFront Function (builder/edge/cloudfront-main.ts + the shared router + the error messages) into the one
// committed file CloudFront runs. `--check` rebuilds in memory and fails when the committed file is stale or too big,
// so CI catches a router change that was never rebuilt.
//   tsx scripts/build-edge.ts            write edge/cloudfront-function.js and print its size
//   tsx scripts/build-edge.ts --check    exit 1 when the committed file differs from a fresh build or is too big
import { readFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';

/** CloudFront Functions reject function code larger than 10 KB. */
export const MAX_FUNCTION_BYTES = 10_240;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const EDGE_ENTRY = path.join(ROOT, 'builder/edge/cloudfront-main.ts');
/** The runtime's module: the only import a function may have, on its first lines, giving `kvs()` (its KeyValueStore). */
const RUNTIME_IMPORT = /^import\s*([\w$]+)\s*from\s*["']cloudfront["'];?/;
export const EDGE_OUTPUT = path.join(ROOT, 'edge/cloudfront-function.js');

const HEADER = '// Built by scripts/build-edge.ts; do not edit.\n';

/**
 * Syntax beyond ES 5.1 that runtime 2.0 documents as supported; everything else is lowered by esbuild (or fails the
 * build when it cannot be), so the bundle never relies on a feature the edge lacks.
 */
const RUNTIME_2_SYNTAX: Record<string, boolean> = {
  'const-and-let': true,
  arrow: true,
  'template-literal': true,
  'rest-argument': true,
  'exponent-operator': true,
  'async-await': true,
};

/**
 * Error messages the edge never answers with, left out of the bundle to keep it inside the 10 KB limit:
 * `missing_object` is the text of the stored not-found document (the renderer writes it, the CDN serves it from S3),
 * and the router answers these codes in English only, before or whatever the language (test/edge/route-clock.test.ts
 * pins that). A router that asked for a dropped one would fail the edge-vs-preview tests.
 */
export const EDGE_UNUSED_MESSAGES = ['missing_object'];
export const EDGE_ENGLISH_ONLY_MESSAGES = ['unsupported_lang', 'malformed_query', 'too_many_parameters', 'request_too_long'];

const dropUnusedMessages: esbuild.Plugin = {
  name: 'edge-messages',
  setup(build) {
    build.onLoad({ filter: /[\\/]locales[\\/][a-z]{2}[\\/]errors\.json$/ }, async (args) => {
      const messages = JSON.parse(await readFile(args.path, 'utf8')) as Record<string, string>;
      const english = /[\\/]en[\\/]errors\.json$/.test(args.path);
      for (const key of [...EDGE_UNUSED_MESSAGES, ...(english ? [] : EDGE_ENGLISH_ONLY_MESSAGES)]) delete messages[key];
      return { contents: JSON.stringify(messages), loader: 'json' };
    });
  },
};

/** Returns the function's source text: a script (no module syntax) with a top-level `function handler(event)`. */
export async function buildEdgeFunction(): Promise<string> {
  const result = await esbuild.build({
    entryPoints: [EDGE_ENTRY],
    bundle: true,
    external: ['cloudfront'],
    plugins: [dropUnusedMessages],
    write: false,
    // ESM keeps the exported handler at the top level under a known name; the export clause is replaced below.
    format: 'esm',
    platform: 'neutral',
    target: 'es5',
    supported: RUNTIME_2_SYNTAX,
    minify: true,
    // Raw UTF-8 keeps the Korean, Japanese and Chinese messages at 3 bytes a character instead of 6 for \uXXXX.
    charset: 'utf8',
    legalComments: 'none',
    sourcemap: false,
    logLevel: 'silent',
  });
  const file = result.outputFiles[0];
  if (result.outputFiles.length !== 1 || file === undefined) throw new Error('[build-edge] esbuild produced no single output file');
  const code = file.text.trimEnd();
  const exportClause = /export\s*\{([^}]*)\};?$/.exec(code);
  if (exportClause === null) throw new Error('[build-edge] the bundle has no trailing export clause to replace');
  let inner: string | null = null;
  for (const spec of (exportClause[1] ?? '').split(',')) {
    const m = /^\s*([\w$]+)(?:\s+as\s+([\w$]+))?\s*$/.exec(spec);
    if (m !== null && (m[2] ?? m[1]) === 'handler') inner = m[1] ?? null;
  }
  if (inner === null) throw new Error('[build-edge] builder/edge/cloudfront-main.ts does not export `handler`');
  const all = code.slice(0, exportClause.index);
  const runtimeImport = RUNTIME_IMPORT.exec(all);
  if (runtimeImport === null) throw new Error("[build-edge] the bundle does not start with the runtime's `import ... from 'cloudfront'`");
  const body = all.slice(runtimeImport[0].length);
  if (/(^|[^\w$.])(import|export)\s*[{*\w]/.test(body.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""'))) {
    throw new Error('[build-edge] the bundle still contains module syntax besides the runtime import, which CloudFront Functions reject');
  }
  // CloudFront calls a global named `handler`; a one-line declaration keeps the minified internals untouched. It is
  // async: the handler awaits the KeyValueStore.
  const tail = `async function handler(event){return ${inner}(event)}\n`;
  return HEADER + `import ${runtimeImport[1]} from 'cloudfront';\n` + body + '\n' + tail;
}

export const byteLength = (code: string): number => Buffer.byteLength(code, 'utf8');

async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({ args: [...argv], options: { check: { type: 'boolean', default: false } }, strict: true });
  const fresh = await buildEdgeFunction();
  const size = byteLength(fresh);
  const rel = path.relative(process.cwd(), EDGE_OUTPUT) || EDGE_OUTPUT;
  const sizeLine = `${rel}: ${size} bytes of ${MAX_FUNCTION_BYTES} (${((size / MAX_FUNCTION_BYTES) * 100).toFixed(1)}% of the CloudFront Functions limit)`;
  if (size > MAX_FUNCTION_BYTES) {
    console.error(`build-edge: ${sizeLine}: too big; shorten the router or the error messages`);
    return 1;
  }
  if (values.check) {
    const committed = await readFile(EDGE_OUTPUT, 'utf8').catch(() => null);
    if (committed === null) {
      console.error(`build-edge: ${rel} is missing; run \`npm run build:edge\` and commit it`);
      return 1;
    }
    if (committed !== fresh) {
      console.error(`build-edge: ${rel} is stale (differs from a fresh build of builder/edge/); run \`npm run build:edge\` and commit it`);
      return 1;
    }
    console.log(`${sizeLine}; up to date`);
    return 0;
  }
  await mkdir(path.dirname(EDGE_OUTPUT), { recursive: true });
  await writeFile(EDGE_OUTPUT, fresh, 'utf8');
  console.log(sizeLine);
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    process.exitCode = await main(process.argv.slice(2));
  } catch (err) {
    console.error(`build-edge: ${(err as Error).message}`);
    process.exitCode = 1;
  }
}
