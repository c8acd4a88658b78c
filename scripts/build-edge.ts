// Bundles the CloudFront Function (builder/edge/cloudfront-main.ts + the shared router + the error messages) into the one
// committed file CloudFront runs. Every build is checked against the runtime's documented rules (cloudfront-rules.ts:
// async only in the top-level handler, the runtime's ES level, the one 'cloudfront' import, 10 KB). `--check` rebuilds
// in memory and fails when the committed file is stale or breaks a rule, so CI catches a router change never rebuilt.
//   tsx scripts/build-edge.ts            write edge/cloudfront-function.js and print its size
//   tsx scripts/build-edge.ts --check    exit 1 when the committed file differs from a fresh build or breaks a rule
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as acorn from 'acorn';
import * as esbuild from 'esbuild';
import { MAX_FUNCTION_BYTES, checkCloudFrontFunction, childrenOf, formatViolation } from './cloudfront-rules.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const EDGE_ENTRY = path.join(ROOT, 'builder/edge/cloudfront-main.ts');
export const EDGE_OUTPUT = path.join(ROOT, 'edge/cloudfront-function.js');

const HEADER = '// Built by scripts/build-edge.ts; do not edit.\n';

/**
 * Syntax beyond ES 5.1 that runtime 2.0 documents as supported; everything else is lowered by esbuild (or fails the
 * build when it cannot be), so the bundle never relies on a feature the edge lacks.
 */
const RUNTIME_2_SYNTAX = Object.fromEntries(
  ['const-and-let', 'arrow', 'template-literal', 'rest-argument', 'exponent-operator', 'async-await'].map((f) => [
    f,
    true,
  ]),
);

/**
 * Error messages the edge never answers with, left out of the bundle to keep it inside the 10 KB limit:
 * `missing_object` is the text of the stored not-found document (the renderer writes it, the CDN serves it from S3),
 * and the router answers these codes in English only, before or whatever the language (test/edge/route-clock.test.ts
 * pins that). A router that asked for a dropped one would fail the edge-vs-preview tests.
 */
export const EDGE_ENGLISH_ONLY_MESSAGES = [
  'unsupported_lang',
  'malformed_query',
  'too_many_parameters',
  'request_too_long',
];

const dropUnusedMessages: esbuild.Plugin = {
  name: 'edge-messages',
  setup(build) {
    build.onLoad({ filter: /[\\/]locales[\\/][a-z]{2}[\\/]errors\.json$/ }, async (args) => {
      const messages = JSON.parse(await readFile(args.path, 'utf8')) as Record<string, string>;
      const english = /[\\/]en[\\/]errors\.json$/.test(args.path);
      for (const key of ['missing_object', ...(english ? [] : EDGE_ENGLISH_ONLY_MESSAGES)]) delete messages[key];
      return { contents: JSON.stringify(messages), loader: 'json' };
    });
  },
};

/** esbuild's one output file, in memory: an ES module of `entry` and all it imports, without comments or source map. */
export async function bundleModule(entry: string, options: esbuild.BuildOptions): Promise<string> {
  const { outputFiles } = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    // Raw UTF-8 keeps the Korean, Japanese and Chinese messages at 3 bytes a character instead of 6 for \uXXXX.
    charset: 'utf8',
    legalComments: 'none',
    logLevel: 'silent',
    ...options,
  });
  return outputFiles![0]!.text;
}

/** Returns the function's source text: the runtime import, then a script with a top-level `async function handler(event)`. */
export async function buildEdgeFunction(): Promise<string> {
  // ESM keeps the exported handler at the top level under a known name; the export clause is replaced below.
  const text = await bundleModule(EDGE_ENTRY, {
    external: ['cloudfront'],
    plugins: [dropUnusedMessages],
    target: 'es5',
    supported: RUNTIME_2_SYNTAX,
    minify: true,
  });
  return finishBundle(text);
}

/**
 * Turns esbuild's module output into the function source: the runtime import first, as `import x from 'cloudfront';`,
 * the export clause dropped, and the handler declared under its own name, `async function handler(event)`, which is
 * what CloudFront calls. The minifier renamed it; it is renamed back only when that cannot change what any other name
 * means: the minified name occurs nowhere but in its declaration and the export, and `handler` nowhere but in the export.
 */
function finishBundle(text: string): string {
  const code = text.trimEnd();
  const program = acorn.parse(code, { ecmaVersion: 'latest', sourceType: 'module' });
  const [first, last] = [program.body[0], program.body.at(-1)];
  const spec =
    last?.type === 'ExportNamedDeclaration' && last.source == null
      ? last.specifiers.find((s) => s.exported.type === 'Identifier' && s.exported.name === 'handler')
      : undefined;
  const inner = spec?.local.type === 'Identifier' ? spec.local.name : '';
  const decl = program.body.find(
    (s): s is acorn.FunctionDeclaration => s.type === 'FunctionDeclaration' && s.id?.name === inner,
  );
  // The import's form (one default specifier) is among the rules main() checks on the finished text.
  if (first?.type !== 'ImportDeclaration' || first.source.value !== 'cloudfront' || decl?.id == null || !last)
    throw new Error(
      "[build-edge] the bundle does not start with the runtime's `import ... from 'cloudfront'` or does not end by exporting `handler`, a top-level function declaration",
    );
  const names: string[] = [];
  const walk = (node: acorn.AnyNode): void => {
    if (node.type === 'Identifier') names.push(node.name);
    childrenOf(node).forEach(walk);
  };
  walk(program);
  const count = (name: string) => names.filter((n) => n === name).length;
  // The declaration and the export's local name; `handler` only as the exported name (once when inner is `handler`).
  if (count(inner) !== (inner === 'handler' ? 3 : 2) || (inner !== 'handler' && count('handler') !== 1)) {
    throw new Error(
      `[build-edge] the handler (minified as ${inner}) is referenced elsewhere in the bundle, or \`handler\` names something else; cannot rename it safely`,
    );
  }
  const body = code.slice(first.end, decl.id.start) + 'handler' + code.slice(decl.id.end, last.start);
  return HEADER + `import ${first.specifiers[0]!.local.name} from 'cloudfront';\n` + body.trim() + '\n';
}

/** Writes the bundle, or with `check` compares the committed one; both runs check the runtime's rules. */
async function main(check: boolean): Promise<number> {
  const fresh = await buildEdgeFunction();
  const size = Buffer.byteLength(fresh, 'utf8');
  const rel = path.relative(process.cwd(), EDGE_OUTPUT);
  const sizeLine = `${rel}: ${size} bytes of ${MAX_FUNCTION_BYTES} (${((size / MAX_FUNCTION_BYTES) * 100).toFixed(1)}% of the CloudFront Functions limit)`;
  const breaks = (file: string, code: string) => {
    const broken = checkCloudFrontFunction(code);
    for (const v of broken) console.error(`build-edge: ${formatViolation(file, v)}`);
    if (broken.length > 0) console.error(`build-edge: ${file} breaks ${broken.length} cloudfront-js-2.0 rule(s)`);
    return broken.length > 0;
  };
  if (breaks('(fresh build)', fresh)) return 1;
  if (!check) {
    await writeFile(EDGE_OUTPUT, fresh, 'utf8');
    console.log(sizeLine);
    return 0;
  }
  // The committed file is what CloudFront actually receives; equal to the fresh build, it keeps the rules too.
  const committed = await readFile(EDGE_OUTPUT, 'utf8').catch(() => null);
  if (committed !== fresh) {
    const why = committed === null ? 'is missing' : 'is stale (differs from a fresh build of builder/edge/)';
    if (committed === null || !breaks(rel, committed))
      console.error(`build-edge: ${rel} ${why}; run \`npm run build:edge\` and commit it`);
    return 1;
  }
  console.log(`${sizeLine}; up to date`);
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  process.exitCode = await main(process.argv.includes('--check'));
