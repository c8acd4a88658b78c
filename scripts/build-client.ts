// Bundles the `reset-status` CLI (clients/src/cli.ts and the client) into the one committed file its `bin` runs
// (clients/dist/reset-status.js): plain ESM JavaScript that Node 20 runs without tsx. Its dependencies stay
// imports (npm installs them with the package), so the bundle holds only the client's own code.
// test/clients/generated.test.ts fails when the committed file differs from a fresh build. A release bundles the same
// sources with its production API URL in place of clients/src/api-url.ts (scripts/pack-client.ts).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CLIENT_ENTRY = path.join(ROOT, 'clients/src/cli.ts');
export const CLIENT_BUNDLE_FILE = path.join(ROOT, 'clients/dist/reset-status.js');
/** The module holding the package's default API URL: null in the repository, the production URL in a release. */
export const CLIENT_API_URL_FILE = path.join(ROOT, 'clients/src/api-url.ts');

/** clients/src/api-url.ts as a release writes it: the same export, naming `url`. */
export function apiUrlModule(url: string): string {
  return (
    '// Written by scripts/pack-client.ts for this release: the API `reset-status` asks when no --base-url,\n' +
    '// RESET_STATUS_API_URL or `baseUrl` option is given.\n' +
    `export const PRODUCTION_API_URL: string | null = ${JSON.stringify(url)};\n`
  );
}

/**
 * The bundle's text, built in memory (deterministic: the same sources give the same bytes). With `apiUrl`, the
 * bundle a release ships: clients/src/api-url.ts is read as `apiUrlModule(apiUrl)`, every other source as it is.
 */
export async function bundleClient(apiUrl?: string): Promise<string> {
  const bake: esbuild.Plugin = {
    name: 'release-api-url',
    setup(build) {
      build.onLoad({ filter: /[\\/]clients[\\/]src[\\/]api-url\.ts$/ }, (args) =>
        args.path === CLIENT_API_URL_FILE && apiUrl !== undefined
          ? { contents: apiUrlModule(apiUrl), loader: 'ts' }
          : undefined,
      );
    },
  };
  const out = await esbuild.build({
    entryPoints: [CLIENT_ENTRY],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    legalComments: 'none',
    banner: {
      js: '#!/usr/bin/env node\n// Built by `npm run generate:client` (scripts/build-client.ts) from clients/src; do not edit.',
    },
    plugins: [bake],
    logLevel: 'silent',
  });
  return out.outputFiles[0]!.text;
}
