// Regenerates the example documents of README.md and docs/api.md from a real offline build (every source disabled, a
// fixed --now), so the examples are what the API serves. Blocks sit between `<!-- example:NAME -->` and
// `<!-- /example -->`; NAME is `<document>-<lang>` (api/<lang>/<document>.json).
// Usage: npm run docs:examples [-- --check] [--readme FILE ...] (default: README.md and docs/api.md)
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { main } from '../builder/main.ts';

/** The as-of instant of every example: a Saturday after the bundled ledger ends, so the data gap shows. */
const EXAMPLES_NOW = '2026-11-21T12:00:00Z';
const BLOCK = /(<!-- example:([a-z]+)-([a-z]{2}) -->\n)[\s\S]*?(<!-- \/example -->)/g;
const root = path.resolve(import.meta.dirname, '..');

const { values } = parseArgs({
  options: {
    check: { type: 'boolean', default: false },
    readme: { type: 'string', multiple: true, default: [path.join(root, 'README.md'), path.join(root, 'docs/api.md')] },
  },
});
const files = await Promise.all(values.readme.map(async (file) => ({ file, text: await readFile(file, 'utf8') })));

// The build's own entry routine, in this process, offline and with its output silenced; each named document
// pretty-printed.
const docs = new Map<string, string>();
const dir = await mkdtemp(path.join(tmpdir(), 'readme-examples-'));
try {
  const args = ['--now', EXAMPLES_NOW, '--out', path.join(dir, 'out'), '--state-dir', path.join(dir, 'state')];
  const env = {
    ...process.env,
    RESET_STATUS_PAGE_URL: '',
    RESET_UPSTREAM_URL: '',
    RESET_TIMELINE_URL: '',
    RESET_POST_EMBED_URL: '',
    RESET_SIGNAL_FEEDS: '',
    RESET_UPSTREAM_STATUS_URL: '',
  };
  const code = await main(args, env, { now: () => new Date(), out: () => {}, err: (l) => console.error(l) });
  if (code !== 0) throw new Error(`[scripts/readme-examples] the build exited ${code}`);
  for (const [, , doc, lang] of files.flatMap(({ text }) => [...text.matchAll(BLOCK)])) {
    const text = await readFile(path.join(dir, 'out', 'api', lang!, `${doc}.json`), 'utf8');
    docs.set(`${doc}-${lang}`, JSON.stringify(JSON.parse(text), null, 2));
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}

for (const { file, text } of files) {
  const blocks = [...text.matchAll(BLOCK)].length;
  const fresh = text.replace(BLOCK, (_all, open: string, doc: string, lang: string, close: string) => {
    return `${open}\`\`\`json\n${docs.get(`${doc}-${lang}`)}\n\`\`\`\n${close}`;
  });
  if (!values.check) {
    await writeFile(file, fresh);
    console.error(`${file}: rewrote ${blocks} example blocks from a build as of ${EXAMPLES_NOW}`);
  } else if (fresh === text) console.error(`${file}: ${blocks} example blocks match a fresh build`);
  else {
    console.error(
      `${file}: the example blocks differ from a fresh build as of ${EXAMPLES_NOW}; run npm run docs:examples`,
    );
    process.exitCode = 1;
  }
}
