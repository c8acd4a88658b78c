// Re-imports ../shared/data/codex-reset-ledger.csv (or the path given) into data/archive/codex-reset-ledger.json,
// applying the reviewed decisions in data/ledger-review.json, and prints the import report. Fails (exit 1) on a
// row whose time disagrees with its post when no reviewed decision explains it.
import { readFile, writeFile } from 'node:fs/promises';
import { LEDGER_NAME, LedgerReviewSchema } from '../builder/sources/ledger.ts';
import { LEDGER_COMMIT, LEDGER_NOTICE, LEDGER_URL, importLedger } from './ledger-import.ts';

const src = process.argv[2] ?? new URL('../../shared/data/codex-reset-ledger.csv', import.meta.url).pathname;
const reviewFile = new URL('../data/ledger-review.json', import.meta.url).pathname;
const out = new URL('../data/archive/codex-reset-ledger.json', import.meta.url).pathname;
const review = LedgerReviewSchema.parse(JSON.parse(await readFile(reviewFile, 'utf8')));
const { events, report } = importLedger(await readFile(src, 'utf8'), review.decisions);
const doc = {
  archive: { name: LEDGER_NAME, url: LEDGER_URL, commit: LEDGER_COMMIT, license: 'MIT', notice: LEDGER_NOTICE },
  records: events,
};
await writeFile(out, JSON.stringify(doc, null, 2) + '\n');
console.log(`Import report: ${report.rows} rows from ${src}`);
console.log(`Rows whose time differs from their post's time by more than 60 s: ${report.disagreements.length}`);
for (const d of report.disagreements) {
  console.log(
    `  ${d.row}  post ${d.post_id} at ${d.post_at}  difference ${d.difference_s} s  ${d.explained ? 'explained by a reviewed decision (ledger time kept as observed_at)' : 'UNEXPLAINED'}`,
  );
}
console.log(`Reviewed decisions applied (data/ledger-review.json): ${report.decisions_applied.length}`);
for (const d of report.decisions_applied) console.log(`  ${d.row}  ${d.decision}`);
console.log(`wrote ${events.length} records to ${out}`);
