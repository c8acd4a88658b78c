// The client's committed generated files are what the generator makes from today's sources: the types from the
// builder's OpenAPI document, and the bin's bundle from clients/src. After a schema change: `npm run generate:client`.
import { readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleClient, CLIENT_BUNDLE_FILE } from '../../scripts/build-client.ts';
import { CLIENT_TYPES_FILE, generateClientTypes } from '../../scripts/generate-client.ts';

const HINT = 'stale: run `npm run generate:client` and commit the result';

describe('the client package’s generated files', () => {
  it('clients/src/api.d.ts is generated from the current OpenAPI document', async () => {
    const fresh = await generateClientTypes();
    expect(fresh).toContain('"/api/latest": {');
    expect((await readFile(CLIENT_TYPES_FILE, 'utf8')) === fresh, HINT).toBe(true);
  });

  it('clients/dist/reset-status.js is the bundle of the current clients/src, runnable by Node without tsx', async () => {
    const fresh = await bundleClient();
    expect(fresh.startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(fresh).not.toMatch(/from ["'][^"']*builder\//);
    expect((await readFile(CLIENT_BUNDLE_FILE, 'utf8')) === fresh, HINT).toBe(true);
  });

  it('a release’s bundle is the committed one with its API URL where the repository’s names none', async () => {
    const url = 'https://api.example.org/v1';
    const committed = await readFile(CLIENT_BUNDLE_FILE, 'utf8');
    expect(committed).toContain('\nvar PRODUCTION_API_URL = null;\n');
    expect(await bundleClient(url)).toBe(
      committed.replace('\nvar PRODUCTION_API_URL = null;\n', `\nvar PRODUCTION_API_URL = ${JSON.stringify(url)};\n`),
    );
  });

  it('npm links the workspace’s bin, so `npx reset-status` runs the committed bundle from the repository', async () => {
    const link = path.resolve(import.meta.dirname, '../../node_modules/.bin/reset-status');
    expect(await realpath(link)).toBe(await realpath(CLIENT_BUNDLE_FILE));
  });
});
