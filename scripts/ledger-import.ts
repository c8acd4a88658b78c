// Turns the public codex-reset-ledger CSV into archived event records (data/archive/codex-reset-ledger.json), run by
// `npm run import-ledger`; the build reads the written archive, never the CSV.
import { DataError } from '../builder/errors.ts';
import { citedPost, timesFromPost, type PostTimeDisagreement } from '../builder/model/evidence.ts';
import { EventSchema, type Event } from '../builder/model/schemas.ts';
import { typeOf, type LedgerDecision } from '../builder/sources/ledger.ts';
import { cleanEvidence, TEXT_LIMITS } from '../builder/sources/sanitize.ts';

export const LEDGER_URL = 'https://github.com/kosanhu2021-source/codex-reset-ledger';
export const LEDGER_COMMIT = '78180e92af42a2e3b61f6504deed058db0556225';
export const LEDGER_NOTICE =
  'Derived from codex-reset-ledger (https://github.com/kosanhu2021-source/codex-reset-ledger). MIT License, Copyright (c) 2026 whenresets.net. Full text: /api/license.txt';

/** RFC 4180 CSV: quoted fields may hold commas, newlines and doubled quotes. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (quoted) throw new DataError('data/ledger', 'unterminated quoted field at end of CSV');
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
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

/** One row as an event, times taken from the post it cites, with the reviewed decision (if any) applied. */
function rowToEvent(
  r: string[],
  n: number,
  seen: Set<string>,
  decision: LedgerDecision | undefined,
  report: LedgerImportReport,
  problems: string[],
): Event {
  const [date, time, ledgerType, description, url, platform] = r;
  const where = `row ${n + 2}`;
  if (!date || !/^\d{4}-\d{2}-\d{2}$/.test(date))
    throw new DataError('data/ledger', `${where}: bad date_utc ${JSON.stringify(date)}`);
  if (!ledgerType || !description) throw new DataError('data/ledger', `${where}: type and description are required`);
  // The columns are named UTC, so a time is read as UTC; anything else in the column (an offset, a zone name, no
  // seconds) is refused rather than dropped to a date or read in the machine's zone.
  if (time && !/^([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/.test(time))
    throw new DataError('data/ledger', `${where}: bad time_utc ${JSON.stringify(time)} (HH:MM:SS in UTC, no zone)`);
  const hasTime = !!time;
  const rowKey = hasTime ? `${date}T${time}Z` : date;
  // Ids come from the row as published, so a reviewed change of time never changes a public id.
  let id = `ledger-${date}-${hasTime ? time!.slice(0, 5).replace(':', '') : ledgerType}`;
  for (let k = 2; seen.has(id); k++) id = `${id}-${k}`;
  seen.add(id);
  const sources = url
    ? [{ platform: platform || 'web', url, ...(url.includes('x.com/') ? { author: url.split('/')[3] ?? '' } : {}) }]
    : [];
  const post = citedPost(sources);
  if (decision && decision.post_id !== (post?.id ?? null))
    problems.push(`${where} (${rowKey}): decision names post ${decision.post_id}, the row cites ${post?.id ?? 'none'}`);
  const dateOnly = !hasTime || decision?.date_only === true;
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
}

/** The ledger CSV as archived events plus the import report; throws LedgerImportError on what review must settle first. */
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
  const events = rows.map((r, n) => {
    const key = r[1] && /^\d{2}:\d{2}:\d{2}$/.test(r[1]) ? `${r[0]}T${r[1]}Z` : (r[0] ?? '');
    const decision = byRow.get(key);
    if (decision) used.add(key);
    return rowToEvent(r, n, seen, decision, report, problems);
  });
  for (const key of byRow.keys()) if (!used.has(key)) problems.push(`decision for row ${key} matches no ledger row`);
  if (problems.length > 0) throw new LedgerImportError(problems);
  return { events, report };
}
