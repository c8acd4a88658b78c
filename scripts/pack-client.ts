// Packs the `reset-status` package as a release ships it: clients/ copied aside, the production API URL baked in as its
// default (src/api-url.ts and the bin's bundle), the repository named in package.json (npm checks a provenance
// statement against it), then `npm pack`, which keeps only the files clients/package.json lists. The release workflow
// (.github/workflows/release.yml) runs it from a version tag; docs/clients.md ("Releasing") has the operator's steps:
//
//   RESET_PUBLIC_BASE_URL=https://api.example.org node --import tsx scripts/pack-client.ts \
//     --tag reset-status-v0.1.0 --repository https://github.com/OWNER/REPO --out build/npm
//
// The URL is the repository variable the refresh workflow publishes the API under, held to the builder's rule for a
// publishing run (builder/public-url.ts: absolute https, not loopback, no credentials, query or fragment). The tag must
// name clients/package.json's version. A wrong input exits 2 before anything is written.
import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { ConfigError } from '../builder/errors.ts';
import { requirePublicUrls } from '../builder/public-url.ts';
import { apiUrlModule, bundleClient } from './build-client.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CLIENT_DIR = path.join(ROOT, 'clients');
/** The tags the release workflow publishes from: `reset-status-v` and clients/package.json's version. */
export const TAG_PREFIX = 'reset-status-v';

export interface PackedFile {
  path: string;
  size: number;
}
export interface PackResult {
  /** The tarball's path. */
  tarball: string;
  files: PackedFile[];
  /** Bytes of the tarball, and of its files unpacked. */
  size: number;
  unpackedSize: number;
  /** The tarball's `sha512-…` integrity, as npm records it. */
  integrity: string;
}

/** `npm pack` in `dir` into `dest`: what npm would publish from `dir`, as `npm pack --json` reports it. */
export async function npmPack(dir: string, dest: string, dryRun = false): Promise<PackResult> {
  const args = ['pack', '--json', '--pack-destination', dest, ...(dryRun ? ['--dry-run'] : [])];
  const { stdout } = await promisify(execFile)('npm', args, { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
  const [r] = JSON.parse(stdout) as {
    filename: string;
    files: PackedFile[];
    size: number;
    unpackedSize: number;
    integrity: string;
  }[];
  if (r === undefined) throw new Error(`npm pack in ${dir} reported no package`);
  const files = r.files.map((f) => ({ path: f.path, size: f.size })).sort((a, b) => (a.path < b.path ? -1 : 1));
  return {
    tarball: path.join(dest, r.filename),
    files,
    size: r.size,
    unpackedSize: r.unpackedSize,
    integrity: r.integrity,
  };
}

/**
 * The package as a release ships it, in `dir` (emptied first): clients/ without node_modules/, with `apiUrl` baked in
 * and, when given, `repository` (an https URL of the GitHub repository) in package.json.
 */
export async function stageClient(dir: string, opts: { apiUrl: string; repository?: string }): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await cp(CLIENT_DIR, dir, {
    recursive: true,
    filter: (src) => path.relative(CLIENT_DIR, src).split(path.sep)[0] !== 'node_modules',
  });
  await writeFile(path.join(dir, 'src/api-url.ts'), apiUrlModule(opts.apiUrl));
  await writeFile(path.join(dir, 'dist/reset-status.js'), await bundleClient(opts.apiUrl), { mode: 0o755 });
  if (opts.repository !== undefined) {
    const pkg = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
    pkg.repository = { type: 'git', url: `git+${opts.repository}.git`, directory: 'clients' };
    await writeFile(path.join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  }
}

/** The release's inputs, checked: the default API URL, the version the tag names, the repository. */
export async function releaseInputs(
  env: Readonly<Record<string, string | undefined>>,
  tag: string | undefined,
  repository: string | undefined,
): Promise<{ apiUrl: string; version: string; repository: string }> {
  const fail = (message: string): never => {
    throw new ConfigError('release', message);
  };
  const version = (JSON.parse(await readFile(path.join(CLIENT_DIR, 'package.json'), 'utf8')) as { version: string })
    .version;
  if (tag !== `${TAG_PREFIX}${version}`)
    fail(
      `the tag ${JSON.stringify(tag ?? '')} does not name clients/package.json's version ${version}: tag the commit that sets the version as ${TAG_PREFIX}${version}`,
    );
  if (repository === undefined || !/^https:\/\/[a-z0-9.-]+\/[\w.-]+\/[\w.-]+$/i.test(repository))
    fail(
      `--repository must be the repository's https URL (https://github.com/OWNER/REPO); got ${repository ?? 'none'}`,
    );
  // The package's default API is the API the refresh workflow publishes: the same variable, the same rule.
  let apiUrl = '';
  try {
    apiUrl = requirePublicUrls({ RESET_PUBLIC_BASE_URL: env.RESET_PUBLIC_BASE_URL }, 's3').publicUrl;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    fail(`the package's default API is RESET_PUBLIC_BASE_URL, the API the refresh workflow publishes: ${err.message}`);
  }
  return { apiUrl, version, repository: repository as string };
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { tag: { type: 'string' }, repository: { type: 'string' }, out: { type: 'string' } },
  });
  let inputs: Awaited<ReturnType<typeof releaseInputs>>;
  try {
    if (values.out === undefined) throw new ConfigError('release', '--out DIR is required');
    inputs = await releaseInputs(process.env, values.tag, values.repository);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(`pack-client: ${err.message}`);
    return 2;
  }
  const out = path.resolve(values.out);
  const stage = path.join(out, 'package');
  await mkdir(out, { recursive: true });
  await stageClient(stage, { apiUrl: inputs.apiUrl, repository: inputs.repository });
  const packed = await npmPack(stage, out);
  console.log(`pack-client: reset-status ${inputs.version}, default API ${inputs.apiUrl}, staged in ${stage}`);
  for (const f of packed.files) console.log(`  ${String(f.size).padStart(8)}  ${f.path}`);
  console.log(
    `pack-client: ${packed.tarball}: ${packed.size} bytes (${packed.unpackedSize} unpacked), ${packed.integrity}`,
  );
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = await main(process.argv.slice(2));
