// `npm run golden:update`: reruns both golden builds (test/golden/golden.ts) and rewrites their listings.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  LISTING_PATH,
  REPLAY_LISTING_PATH,
  assertClosedPort,
  buildGolden,
  buildGoldenReplay,
  hashListing,
} from '../test/golden/golden.ts';

await assertClosedPort();
const builds = [
  { listing: LISTING_PATH, build: buildGolden },
  { listing: REPLAY_LISTING_PATH, build: buildGoldenReplay },
];
for (const { listing, build } of builds) {
  const root = await mkdtemp(path.join(tmpdir(), 'rsa-golden-'));
  try {
    const r = await build(root);
    if (r.code !== 0) throw new Error(`the golden build exited ${r.code}:\n${r.stderr}`);
    const lines = await hashListing(root, r.port);
    await writeFile(listing, `${lines.join('\n')}\n`);
    console.log(`${path.relative(process.cwd(), listing)}: ${lines.length} files`);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
