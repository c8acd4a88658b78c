// The golden guard: the real build at a fixed --now must leave exactly the files of the committed listing, byte for
// byte, from two inputs: the bundled data with every source failing (test/golden/listing.txt), and the real upstreams'
// 2026-09-29 captures replayed on loopback (test/golden/listing-replay.txt). A change meant to alter the output
// regenerates both listings with `npm run golden:update` in the same commit.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LISTING_PATH,
  REPLAY_LISTING_PATH,
  assertClosedPort,
  buildGolden,
  buildGoldenReplay,
  compareListings,
  hashListing,
  parseListing,
} from './golden.ts';

async function expectListing(listingPath: string, lines: string[]): Promise<void> {
  const expected = parseListing(await readFile(listingPath, 'utf8'));
  const actual = parseListing(lines.join('\n'));
  const { differ, added, missing } = compareListings(expected, actual);
  const report = [
    ...differ.map((f) => `differs: ${f}`),
    ...added.map((f) => `added:   ${f}`),
    ...missing.map((f) => `missing: ${f}`),
  ];
  // The message names every file; `npm run golden:update` rewrites the listing when the change is intended.
  const name = path.basename(listingPath);
  expect(report, `${report.length} file(s) differ from test/golden/${name}:\n${report.join('\n')}`).toEqual([]);
  expect(actual.size).toBeGreaterThan(400);
}

describe('golden build, every source refused', () => {
  let root: string;
  let result: Awaited<ReturnType<typeof buildGolden>>;

  beforeAll(async () => {
    await assertClosedPort();
    root = await mkdtemp(path.join(tmpdir(), 'rsa-golden-'));
    result = await buildGolden(root);
  }, 120_000);
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('builds with every source failing as connection_refused', () => {
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'sources: 0 ok, 5 failed (status-page: connection_refused, status-incidents: connection_refused, reset-tracker: connection_refused, tracker-status: connection_refused, feed-1: connection_refused)',
    );
  });

  it('leaves every file of dist/ and the state exactly as the committed listing says', async () => {
    await expectListing(LISTING_PATH, await hashListing(root));
  });
});

describe('golden build, real upstreams replayed', () => {
  let root: string;
  let result: Awaited<ReturnType<typeof buildGoldenReplay>>;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'rsa-golden-replay-'));
    result = await buildGoldenReplay(root);
  }, 120_000);
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('builds with every source read', () => {
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('sources: 5 ok, 0 failed');
  });

  it('leaves every file of dist/ and the state exactly as the committed listing says', async () => {
    await expectListing(REPLAY_LISTING_PATH, await hashListing(root, result.port));
  });
});
