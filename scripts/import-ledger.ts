// Re-imports ../shared/data/codex-reset-ledger.csv (or the path given) into data/archive/codex-reset-ledger.json.
import { readFile, writeFile } from 'node:fs/promises';
import { LEDGER_COMMIT, LEDGER_NAME, LEDGER_NOTICE, LEDGER_URL, ledgerRowsToEvents } from '../builder/sources/ledger.ts';

const src = process.argv[2] ?? new URL('../../shared/data/codex-reset-ledger.csv', import.meta.url).pathname;
const out = new URL('../data/archive/codex-reset-ledger.json', import.meta.url).pathname;
const events = ledgerRowsToEvents(await readFile(src, 'utf8'));
const doc = {
  archive: { name: LEDGER_NAME, url: LEDGER_URL, commit: LEDGER_COMMIT, license: 'MIT', notice: LEDGER_NOTICE },
  records: events,
};
await writeFile(out, JSON.stringify(doc, null, 2) + '\n');
console.log(`imported ${events.length} records from ${src} into ${out}`);
