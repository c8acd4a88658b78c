// Source 4: the curated archive in data/, kept in git, where review is the verification process.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { DataError } from '../errors.ts';
import { unlessMissing } from '../fsutil/missing.ts';
import { ReviewDecisionSchema, type ArchiveInfo, type ReviewDecision } from '../model/inputs.ts';
import { EventSchema, type Event } from '../model/schemas.ts';
import { AnnouncementReviewFileSchema, type AnnouncementReview } from '../model/announcement.ts';
import type { ReviewDate } from '../model/events.ts';
import { TrackerReviewFileSchema, type TrackerReview } from '../model/reconcile.ts';
import { hasReach, misquotes, ReachReviewFileSchema, type ReachDecision } from '../model/reach.ts';
import { LedgerReviewSchema, typeOf } from './ledger.ts';
import { OfficialAccountsFileSchema, type OfficialAccount } from './official-accounts.ts';

const ArchiveFileSchema = z.strictObject({
  archive: z.object({
    name: z.string().min(1),
    url: z.url(),
    commit: z.string().optional(),
    license: z.string().min(1),
    notice: z.string().min(1),
  }),
  records: z.array(EventSchema),
});

const VerifiedEventSchema = EventSchema.refine((e) => e.status === 'verified', {
  path: ['status'],
  message: 'records in data/verified must have status "verified"',
});

export interface CuratedData {
  events: Event[];
  archives: ArchiveInfo[];
  reviews: ReviewDecision[];
  /** data/announcement-review.json: which posts promised a reset ahead (empty when the file is absent). */
  announcements?: AnnouncementReview[];
  /** data/ledger-review.json's decisions by record and date, so an as-of build undoes later ones. */
  review_dates?: ReviewDate[];
  /** data/tracker-review.json: reviewed decisions on tracker records (model/reconcile.ts). */
  tracker_reviews?: TrackerReview[];
  /** data/reach-review.json: whom each reset reached and when it lands, by event id (model/reach.ts). */
  reach?: Record<string, ReachDecision>;
  /** data/official-accounts.json: the handles of the reviewed official accounts, lower-cased (none when absent). */
  official_accounts?: string[];
  /** The same accounts' entries as written (handle, name, why, who decided and when). */
  official_account_entries?: OfficialAccount[];
}

const dataError = (message: string) => new DataError('sources/archive', message);

/** Curated data that does not validate: the run stops before anything is published (exit 1). */
function invalidData(file: string, issues: readonly { path: readonly PropertyKey[]; message: string }[]): DataError {
  const lines = issues.slice(0, 10).map((i) => `  ${file}: ${i.path.map(String).join('.') || '(root)'}: ${i.message}`);
  return dataError(`invalid curated data\n${lines.join('\n')}`);
}

async function jsonFiles(dir: string): Promise<string[]> {
  return (await unlessMissing(readdir(dir), []))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => path.join(dir, f));
}

/** A file of data/ read and validated (a missing one fails with its ENOENT). */
async function parseFile<T>(file: string, schema: z.ZodType<T>, dataDir: string): Promise<T> {
  const rel = path.relative(path.dirname(dataDir), file);
  const text = await readFile(file, 'utf8');
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw invalidData(rel, [{ path: [], message: `not valid JSON: ${(err as Error).message}` }]);
  }
  const r = schema.safeParse(raw);
  if (!r.success) throw invalidData(rel, r.error.issues);
  return r.data;
}

/** data/archive/*.json: imported archives, their records and what /api/status says of each. */
async function loadArchives(dataDir: string, events: Event[]): Promise<ArchiveInfo[]> {
  const archives: ArchiveInfo[] = [];
  for (const file of await jsonFiles(path.join(dataDir, 'archive'))) {
    const a = await parseFile(file, ArchiveFileSchema, dataDir);
    events.push(...a.records);
    const dates = a.records
      .map((r) => (r.effective_at ?? r.observed_at ?? r.announced_at ?? '').slice(0, 10))
      .filter(Boolean)
      .sort();
    const license = path.join(dataDir, `LICENSE-${a.archive.name}.txt`);
    const licenseText = await readFile(license, 'utf8').catch(() => undefined);
    archives.push({
      name: a.archive.name,
      url: a.archive.url,
      notice: a.archive.notice,
      ...(licenseText === undefined ? {} : { license_text: licenseText }),
      records: a.records.length,
      since: dates[0] ?? null,
    });
  }
  return archives;
}

/** data/tracker-review.json and data/reach-review.json may only name events data/ holds (reach: quoting their posts). */
function checkReviews(events: readonly Event[], trackerReviews: TrackerReview[], reach: Record<string, ReachDecision>) {
  const byId = new Map(events.map((e) => [e.id, e]));
  const stray = trackerReviews.find((d) => d.event_id !== undefined && !byId.has(d.event_id));
  if (stray)
    throw dataError(
      `tracker-review.json: decision on post ${stray.post_id} names event ${stray.event_id}, which data/ does not hold`,
    );
  for (const [id, d] of Object.entries(reach)) {
    const e = byId.get(id);
    if (e === undefined || !hasReach(e)) throw dataError(`reach-review.json: event ${id} is not a reset data/ holds`);
    const wrong = misquotes(d, e.evidence_text);
    if (wrong.length > 0)
      throw dataError(
        `reach-review.json: event ${id} quotes words its post does not have: ${JSON.stringify(wrong[0])}`,
      );
  }
}

/**
 * Reads and validates data/: archive/*.json (imported archives), verified/*.json (one verified event each),
 * reviews/*.json, and the review files and the official accounts' list (official-accounts.json) that may be absent.
 */
export async function loadCuratedData(dataDir: string): Promise<CuratedData> {
  const events: Event[] = [];
  const archives = await loadArchives(dataDir, events);
  for (const file of await jsonFiles(path.join(dataDir, 'verified')))
    events.push(await parseFile(file, VerifiedEventSchema, dataDir));
  const reviews: ReviewDecision[] = [];
  for (const file of await jsonFiles(path.join(dataDir, 'reviews')))
    reviews.push(...(await parseFile(file, z.array(ReviewDecisionSchema), dataDir)));
  const ids = new Set<string>();
  for (const e of events) {
    if (ids.has(e.id)) throw dataError(`duplicate event id ${e.id} in ${dataDir}`);
    ids.add(e.id);
  }
  const optional = <T>(name: string, schema: z.ZodType<T>) =>
    unlessMissing(parseFile(path.join(dataDir, name), schema, dataDir), null);
  const announcements = (await optional('announcement-review.json', AnnouncementReviewFileSchema))?.posts ?? [];
  const decisions = (await optional('ledger-review.json', LedgerReviewSchema))?.decisions ?? [];
  const review_dates: ReviewDate[] = decisions
    .filter((d) => d.set_type !== undefined || d.effective_within_minutes !== undefined)
    .map((d) => ({
      // The import's id rule (ledger.ts): ledger-DATE-HHMM from the row as published.
      record_id: `ledger-${d.row.slice(0, 10)}-${d.row.slice(11, 16).replace(':', '')}`,
      reviewed_at: d.reviewed_at,
      before: {
        ...(d.set_type !== undefined && d.ledger_type !== undefined ? typeOf(d.ledger_type) : {}),
        ...(d.effective_within_minutes !== undefined ? { effective_at_null: true } : {}),
      },
    }));
  const tracker_reviews = (await optional('tracker-review.json', TrackerReviewFileSchema))?.decisions ?? [];
  const reach = (await optional('reach-review.json', ReachReviewFileSchema))?.events ?? {};
  checkReviews(events, tracker_reviews, reach);
  const official_account_entries =
    (await optional('official-accounts.json', OfficialAccountsFileSchema))?.accounts ?? [];
  const official_accounts = official_account_entries.map((a) => a.handle.toLowerCase());
  return {
    events,
    archives,
    reviews,
    announcements,
    review_dates,
    tracker_reviews,
    reach,
    official_accounts,
    official_account_entries,
  };
}
