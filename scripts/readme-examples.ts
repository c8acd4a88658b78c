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
export const EXAMPLES_NOW = '2026-11-21T12:00:00Z';
const BLOCK = /(<!-- example:([a-z]+)-([a-z]{2}) -->\n)[\s\S]*?(<!-- \/example -->)/g;
const root = path.resolve(import.meta.dirname, '..');

/** Builds offline into a temporary directory and returns the named documents' text, pretty-printed. */
async function buildDocs(names: readonly { doc: string; lang: string }[]): Promise<Map<string, string>> {
  const dir = await mkdtemp(path.join(tmpdir(), 'readme-examples-'));
  try {
    // The build's own entry routine, in this process, with its output silenced.
    const args = ['--now', EXAMPLES_NOW, '--out', path.join(dir, 'out'), '--state-dir', path.join(dir, 'state')];
    const env = {
      ...process.env,
      RESET_STATUS_PAGE_URL: '',
      RESET_UPSTREAM_URL: '',
      RESET_SIGNAL_FEEDS: '',
      RESET_UPSTREAM_STATUS_URL: '',
    };
    const code = await main(args, env, { now: () => new Date(), out: () => {}, err: (l) => console.error(l) });
    if (code !== 0) throw new Error(`[scripts/readme-examples] the build exited ${code}`);
    const out = new Map<string, string>();
    for (const { doc, lang } of names) {
      const text = await readFile(path.join(dir, 'out', 'api', lang, `${doc}.json`), 'utf8');
      out.set(`${doc}-${lang}`, JSON.stringify(JSON.parse(text), null, 2));
    }
    return out;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The README with every example block replaced by its document from `docs`. */
export function replaceExamples(readme: string, docs: ReadonlyMap<string, string>): string {
  return readme.replace(BLOCK, (_all, open: string, doc: string, lang: string, close: string) => {
    const text = docs.get(`${doc}-${lang}`);
    if (text === undefined) throw new Error(`[scripts/readme-examples] no document for example ${doc}-${lang}`);
    return `${open}\`\`\`json\n${text}\n\`\`\`\n${close}`;
  });
}

export function exampleNames(readme: string): { doc: string; lang: string }[] {
  return [...readme.matchAll(BLOCK)].map((m) => ({ doc: m[2]!, lang: m[3]! }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      check: { type: 'boolean', default: false },
      readme: {
        type: 'string',
        multiple: true,
        default: [path.join(root, 'README.md'), path.join(root, 'docs/api.md')],
      },
    },
  });
  const files = await Promise.all(values.readme.map(async (file) => ({ file, text: await readFile(file, 'utf8') })));
  const docs = await buildDocs(files.flatMap(({ text }) => exampleNames(text)));
  let differs = false;
  for (const { file, text } of files) {
    const fresh = replaceExamples(text, docs);
    if (values.check) {
      if (fresh !== text) {
        console.error(
          `${file}: the example blocks differ from a fresh build as of ${EXAMPLES_NOW}; run npm run docs:examples`,
        );
        differs = true;
      } else console.error(`${file}: ${exampleNames(text).length} example blocks match a fresh build`);
    } else {
      await writeFile(file, fresh);
      console.error(`${file}: rewrote ${exampleNames(text).length} example blocks from a build as of ${EXAMPLES_NOW}`);
    }
  }
  if (differs) process.exit(1);
}
