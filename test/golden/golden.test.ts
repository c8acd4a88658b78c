// The golden guard: the real build at a fixed --now from the bundled data, with every source failing, must leave
// exactly the files of the committed listing (test/golden/listing.txt), byte for byte. A change meant to alter the
// output regenerates the listing with `npm run golden:update` in the same commit.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LISTING_PATH, assertClosedPort, buildGolden, compareListings, hashListing, parseListing } from './golden.ts';

describe('golden build', () => {
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
    const expected = parseListing(await readFile(LISTING_PATH, 'utf8'));
    const actual = parseListing((await hashListing(root)).join('\n'));
    const { differ, added, missing } = compareListings(expected, actual);
    const report = [
      ...differ.map((f) => `differs: ${f}`),
      ...added.map((f) => `added:   ${f}`),
      ...missing.map((f) => `missing: ${f}`),
    ];
    // The message names every file; `npm run golden:update` rewrites the listing when the change is intended.
    expect(report, `${report.length} file(s) differ from test/golden/listing.txt:\n${report.join('\n')}`).toEqual([]);
    expect(actual.size).toBeGreaterThan(400);
  });
});
