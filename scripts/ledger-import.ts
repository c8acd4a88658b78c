// Turns the public codex-reset-ledger CSV into archived event records (data/archive/codex-reset-ledger.json), run by
// `npm run import-ledger`; the build reads the written archive, never the CSV.
import { readFile, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { DataError } from '../builder/errors.ts';
import { citedPost, timesFromPost, type PostTimeDisagreement } from '../builder/model/evidence.ts';
import { EventSchema, type Event } from '../builder/model/schemas.ts';
import { LEDGER_NAME, LedgerReviewSchema, typeOf, type LedgerDecision } from '../builder/sources/ledger.ts';
import { cleanEvidence, TEXT_LIMITS } from '../builder/sources/sanitize.ts';

const LEDGER_URL = 'https://github.com/kosanhu2021-source/codex-reset-ledger';
const LEDGER_COMMIT = '78180e92af42a2e3b61f6504deed058db0556225';
const LEDGER_NOTICE =
  'Derived from codex-reset-ledger (https://github.com/kosanhu2021-source/codex-reset-ledger). MIT License, Copyright (c) 2026 whenresets.net. Full text: /api/license.txt';

/** RFC 4180 CSV: quoted fields may hold commas, newlines and doubled quotes; blank lines are skipped. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  // One field, quoted or bare, and what ends it: a comma, a line break or the end of the text.
  const field = /(?:"((?:[^"]|"")*)"|([^",\r\n]*))(,|\r\n|\n|\r|$)/y;
  while (field.lastIndex < text.length) {
    const m = field.exec(text);
    if (m === null)
      throw new DataError('data/ledger', `row ${rows.length + 1}: unterminated or misplaced quote in CSV`);
    row.push(m[1]?.replaceAll('""', '"') ?? m[2]!);
    if (m[3] !== ',') {
      rows.push(row);
      row = [];
    }
  }
  if (row.length > 0) rows.push([...row, '']);
  return rows.filter((r) => !(r.length === 1 && r[0] === ''));
}

const HEADER = ['date_utc', 'time_utc', 'type', 'description', 'source_url', 'source_platform'] as const;

export interface LedgerImportReport {
  rows: number;
  /** Every row whose own time is more than a minute from its post's time, and whether a decision explains it. */
  disagreements: (PostTimeDisagreement & { row: string; explained: boolean })[];
  decisions_applied: { row: string; decision: string }[];
}

export class LedgerImportError extends DataError {
  constructor(problems: readonly string[]) {
    super('data/ledger', `import refused:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

const addMinutes = (iso: string, minutes: number) =>
  new Date(Date.parse(iso) + minutes * 60_000).toISOString().replace(/\.000Z$/, 'Z');

/**
 * The ledger CSV as archived events plus the import report: each row's times taken from the post it cites, with the
 * reviewed decision for the row (if any) applied. Throws LedgerImportError on what review must settle first.
 */
export function importLedger(
  csv: string,
  decisions: readonly LedgerDecision[] = [],
): { events: Event[]; report: LedgerImportReport } {
  const [header, ...rows] = parseCsv(csv);
  if (!header || HEADER.some((h, i) => header[i] !== h)) {
    throw new DataError('data/ledger', `unexpected header ${JSON.stringify(header)}; expected ${HEADER.join(',')}`);
  }
  const byRow = new Map<string, LedgerDecision>();
  for (const d of decisions) {
    if (byRow.has(d.row)) throw new LedgerImportError([`two decisions for row ${d.row}`]);
    byRow.set(d.row, d);
  }
  const report: LedgerImportReport = { rows: rows.length, disagreements: [], decisions_applied: [] };
  const problems: string[] = [];
  const seen = new Set<string>();
  const used = new Set<string>();
  const events = rows.map(([date, time, ledgerType, description, url, platform], n): Event => {
    const where = `row ${n + 2}`;
    if (!date || !/^\d{4}-\d{2}-\d{2}$/.test(date))
      throw new DataError('data/ledger', `${where}: bad date_utc ${JSON.stringify(date)}`);
    if (!ledgerType || !description) throw new DataError('data/ledger', `${where}: type and description are required`);
    // The columns are named UTC, so a time is read as UTC; anything else in the column (an offset, a zone name, no
    // seconds) is refused rather than dropped to a date or read in the machine's zone.
    if (time && !/^([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/.test(time))
      throw new DataError('data/ledger', `${where}: bad time_utc ${JSON.stringify(time)} (HH:MM:SS in UTC, no zone)`);
    const rowKey = time ? `${date}T${time}Z` : date;
    const decision = byRow.get(rowKey);
    used.add(rowKey);
    // Ids come from the row as published, so a reviewed change of time never changes a public id.
    let id = `ledger-${date}-${time ? time.slice(0, 5).replace(':', '') : ledgerType}`;
    for (let k = 2; seen.has(id); k++) id = `${id}-${k}`;
    seen.add(id);
    const sources = url
      ? [{ platform: platform || 'web', url, ...(url.includes('x.com/') ? { author: url.split('/')[3] ?? '' } : {}) }]
      : [];
    const post = citedPost(sources);
    if (decision && decision.post_id !== (post?.id ?? null))
      problems.push(
        `${where} (${rowKey}): decision names post ${decision.post_id}, the row cites ${post?.id ?? 'none'}`,
      );
    const dateOnly = !time || decision?.date_only === true;
    // The post's creation time is the announcement; a ledger time away from it is what the ledger observed.
    const times = dateOnly
      ? { announced_at: date, observed_at: null, time_basis: 'announcement' as const, disagreement: null }
      : timesFromPost(rowKey, sources);
    if (times.disagreement) {
      const explained = decision?.explains_time_disagreement === true;
      report.disagreements.push({ ...times.disagreement, row: rowKey, explained });
      if (!explained)
        problems.push(
          `${where} (${rowKey}): time differs from post ${times.disagreement.post_id} (${times.disagreement.post_at}) by ${times.disagreement.difference_s} s; add a reviewed decision to data/ledger-review.json`,
        );
    }
    const base = typeOf(ledgerType);
    const effectiveAt =
      decision?.effective_within_minutes === undefined
        ? null
        : addMinutes(times.announced_at, decision.effective_within_minutes);
    if (decision) report.decisions_applied.push({ row: rowKey, decision: decision.decision });
    return EventSchema.parse({
      id,
      type: decision?.set_type ?? base.type,
      status: 'archived',
      reason: decision?.set_reason ?? base.reason,
      origin: 'ledger',
      time_precision: dateOnly ? 'day' : 'second',
      time_basis: effectiveAt !== null ? 'effective' : times.time_basis,
      announced_at: times.announced_at,
      observed_at: times.observed_at,
      effective_at: effectiveAt,
      ...(decision ? { author_notes: { en: `Reviewed ${decision.reviewed_at}: ${decision.decision}` } } : {}),
      // Third-party text like any source's: invisible characters and markup go (sanitize.ts).
      evidence_text: cleanEvidence(description, TEXT_LIMITS.evidence),
      sources,
    });
  });
  for (const key of byRow.keys()) if (!used.has(key)) problems.push(`decision for row ${key} matches no ledger row`);
  if (problems.length > 0) throw new LedgerImportError(problems);
  return { events, report };
}

// npm run import-ledger [-- CSV]: re-imports data/archive/codex-reset-ledger.source.csv (or the path given) into
// data/archive/codex-reset-ledger.json, applying the reviewed decisions in data/ledger-review.json, and prints the
// import report. Fails (exit 1) on a row whose time disagrees with its post when no reviewed decision explains it.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const src = process.argv[2] ?? new URL('../data/archive/codex-reset-ledger.source.csv', import.meta.url).pathname;
  const out = new URL('../data/archive/codex-reset-ledger.json', import.meta.url).pathname;
  const reviewFile = new URL('../data/ledger-review.json', import.meta.url).pathname;
  const review = LedgerReviewSchema.parse(JSON.parse(await readFile(reviewFile, 'utf8')));
  const { events, report } = importLedger(await readFile(src, 'utf8'), review.decisions);
  const archive = { name: LEDGER_NAME, url: LEDGER_URL, commit: LEDGER_COMMIT, license: 'MIT', notice: LEDGER_NOTICE };
  await writeFile(out, JSON.stringify({ archive, records: events }, null, 2) + '\n');
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
}
