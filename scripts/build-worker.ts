// Builds the Cloudflare Worker (workers/src/index.ts + the shared router) into the file workers/wrangler.json deploys
// (`main`, uploaded as is: `no_bundle`), after checking the dist/ it will upload as static assets (`assets.directory`).
// A Worker deployment publishes dist/ to the world, so a dist/ built without an absolute https:// public URL (the
// OpenAPI `servers`, and feeds and calendars carrying the loopback default) is refused: configuration error, exit 2,
// nothing written. Build the API for the Worker with `RESET_PUBLIC_BASE_URL=https://… npm run build` first.
//   tsx scripts/build-worker.ts [--assets DIR] [--out FILE]    defaults: assets.directory and main of workers/wrangler.json
import { readFile, readdir, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import wrangler from '../workers/wrangler.json' with { type: 'json' };
import { bundleModule } from './build-edge.ts';
import { DEFAULT_PUBLIC_URL, EDGE_STORE_FILE, FOLLOW_DOCUMENTS, LANGS, OPENAPI_KEY } from '../builder/contract.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WORKER_DIR = path.join(ROOT, 'workers');
export const WORKER_ENTRY = path.join(WORKER_DIR, 'src/index.ts');

/** A loopback or unspecified host in a URL a feed or calendar would carry: the local build's default. */
const LOOPBACK_URL = /\bhttps?:\/\/(?:localhost|127\.\d+\.\d+\.\d+|0\.0\.0\.0|\[::1?\])(?=[:/"'<\s]|$)/i;

/**
 * Why `dir` must not be published by a Worker, or null when it may: it must be a finished build (documents and the
 * edge store), made with an absolute https:// RESET_PUBLIC_BASE_URL (the OpenAPI `servers` URL), its feeds and
 * calendars free of loopback links.
 */
export async function checkWorkerAssets(dir: string): Promise<string | null> {
  const read = (key: string) => readFile(path.join(dir, key), 'utf8').catch(() => null);
  const openapi = await read(OPENAPI_KEY);
  if (openapi === null || (await read(EDGE_STORE_FILE)) === null) {
    return `${dir} is not a finished build (${OPENAPI_KEY} or ${EDGE_STORE_FILE} missing); run \`RESET_PUBLIC_BASE_URL=https://… npm run build\` first`;
  }
  let server: unknown;
  try {
    server = (JSON.parse(openapi) as { servers?: { url?: unknown }[] }).servers?.[0]?.url;
  } catch {
    return `${dir}/${OPENAPI_KEY} is not JSON`;
  }
  if (
    typeof server !== 'string' ||
    !server.startsWith('https://') ||
    !URL.canParse(server) ||
    LOOPBACK_URL.test(server.replace(/^https/, 'http'))
  ) {
    return `${dir} was built without an absolute https:// RESET_PUBLIC_BASE_URL (its OpenAPI servers URL is ${JSON.stringify(server)}); a Worker publishes it beyond this machine, so its feeds and calendars need the public URL: rebuild with RESET_PUBLIC_BASE_URL=https://your.domain`;
  }
  for (const lang of LANGS) {
    for (const name of Object.keys(FOLLOW_DOCUMENTS)) {
      const text = await read(`api/${lang}/${name}`);
      if (text !== null && (LOOPBACK_URL.test(text) || text.includes(DEFAULT_PUBLIC_URL))) {
        return `${dir}/api/${lang}/${name} carries a loopback URL; rebuild with RESET_PUBLIC_BASE_URL=https://your.domain`;
      }
    }
  }
  return null;
}

/** The Worker's module source: one ES module with `export default { fetch }`, nothing imported at run time. */
export async function bundleWorker(entry = WORKER_ENTRY): Promise<string> {
  // workerd runs current JavaScript; the compatibility date in wrangler.json pins its behaviour.
  const text = await bundleModule(entry, { target: 'es2022' });
  return '// Built by scripts/build-worker.ts from workers/src/index.ts; do not edit.\n' + text;
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { assets: { type: 'string' }, out: { type: 'string' } } });
  const assets = path.resolve(values.assets ?? path.join(WORKER_DIR, wrangler.assets.directory));
  const out = path.resolve(values.out ?? path.join(WORKER_DIR, wrangler.main));
  const refused = await checkWorkerAssets(assets);
  if (refused !== null) {
    console.error(`build-worker: configuration error: ${refused}`);
    return 2;
  }
  const code = await bundleWorker();
  await mkdir(path.dirname(out), { recursive: true });
  await writeFile(out, code, 'utf8');
  const rel = (p: string) => path.relative(process.cwd(), p) || p;
  const files = (await readdir(assets, { withFileTypes: true, recursive: true })).filter((e) => e.isFile()).length;
  console.log(
    `${rel(out)}: ${Buffer.byteLength(code)} bytes; assets ${rel(assets)}: ${files} files. Deploy: npx wrangler deploy -c workers/wrangler.json`,
  );
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = await main(process.argv.slice(2));
