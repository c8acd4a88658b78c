// Bundles the `reset-status` CLI (clients/src/cli.ts and the client) into the one committed file its `bin` runs
// (clients/dist/reset-status.js): plain ESM JavaScript that Node 20 runs without tsx. Its dependencies stay
// imports (npm installs them with the package), so the bundle holds only the client's own code.
// test/clients/generated.test.ts fails when the committed file differs from a fresh build.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CLIENT_ENTRY = path.join(ROOT, 'clients/src/cli.ts');
export const CLIENT_BUNDLE_FILE = path.join(ROOT, 'clients/dist/reset-status.js');

/** The bundle's text, built in memory (deterministic: the same sources give the same bytes). */
export async function bundleClient(): Promise<string> {
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
    logLevel: 'silent',
  });
  return out.outputFiles[0]!.text;
}
