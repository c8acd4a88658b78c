// `npm run golden:update`: rebuilds the golden build (test/golden/golden.ts) and rewrites test/golden/listing.txt.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LISTING_PATH, assertClosedPort, buildGolden, hashListing } from '../test/golden/golden.ts';

await assertClosedPort();
const root = await mkdtemp(path.join(tmpdir(), 'rsa-golden-'));
try {
  const r = await buildGolden(root);
  if (r.code !== 0) throw new Error(`the golden build exited ${r.code}:\n${r.stderr}`);
  const lines = await hashListing(root);
  await writeFile(LISTING_PATH, `${lines.join('\n')}\n`);
  console.log(`${path.relative(process.cwd(), LISTING_PATH)}: ${lines.length} files`);
} finally {
  await rm(root, { recursive: true, force: true });
}
