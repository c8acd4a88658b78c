import { cp, mkdtemp, readFile, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { citedPost } from '../../builder/model/evidence.ts';
import { loadCuratedData } from '../../builder/sources/archive.ts';
import { LedgerReviewSchema } from '../../builder/sources/ledger.ts';
import { importLedger, parseCsv } from '../../scripts/ledger-import.ts';

const DATA = new URL('../../data', import.meta.url).pathname;
const copyData = async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'rsa-data-'));
  await cp(DATA, path.join(dir, 'data'), { recursive: true });
  return path.join(dir, 'data');
};

describe('curated archive', () => {
  it('imports every ledger row: banked rows are grants, policy rows are not resets, the rest global resets', async () => {
    const { events, archives } = await loadCuratedData(DATA);
    const ledger = events.filter((e) => e.origin === 'ledger');
    expect(ledger).toHaveLength(58);
    const count = (t: string) => ledger.filter((e) => e.type === t).length;
    // 2026-06-28 is a global reset by reviewed decision (data/ledger-review.json), though the ledger types it banked.
    expect([count('global_reset'), count('banked_grant'), count('policy_change')]).toEqual([48, 7, 3]);
    expect(ledger.every((e) => e.status === 'archived')).toBe(true);
    expect(archives[0]).toMatchObject({ name: 'codex-reset-ledger', records: 58, since: '2025-09-17' });
    expect(archives[0]!.notice).toMatch(/MIT License, Copyright \(c\) 2026 whenresets\.net/);
  });

  it('keeps every ledger record of data/ as the ledger classifies it, unless a reviewed decision in data/ says otherwise', async () => {
    // Asserts on what the repository holds (data/archive and data/ledger-review.json), so it runs everywhere.
    const { events } = await loadCuratedData(DATA);
    const review = LedgerReviewSchema.parse(JSON.parse(await readFile(path.join(DATA, 'ledger-review.json'), 'utf8')));
    const ledger = events.filter((e) => e.origin === 'ledger');
    const expectedType = (reason: string) =>
      reason === 'banked' ? 'banked_grant' : reason === 'policy' ? 'policy_change' : 'global_reset';
    let reviewed = 0;
    for (const e of ledger) {
      expect(e.id).toMatch(/^ledger-\d{4}-\d{2}-\d{2}-[a-z0-9]+(-\d+)?$/);
      expect(e.evidence_text.trim()).not.toBe('');
      const post = citedPost(e.sources);
      const decision = review.decisions.find((d) => post !== null && d.post_id === post.id);
      if (decision) reviewed++;
      expect(e.type, e.id).toBe(decision?.set_type ?? expectedType(e.reason));
      // An X post's time comes from its id: the announcement is the post, whatever time the ledger wrote.
      if (post !== null && e.time_precision !== 'day') expect(e.announced_at, e.id).toBe(post.at);
    }
    expect(reviewed).toBeGreaterThan(0);
    expect(ledger.filter((e) => e.reason === 'banked' && e.type === 'banked_grant').length).toBeGreaterThan(0);
  });

  // The published CSV, kept byte for byte in data/archive/ with its provenance (data/README.md).
  const sourceCsv = new URL('../../data/archive/codex-reset-ledger.source.csv', import.meta.url);
  it('is exactly what npm run import-ledger produces from the published CSV and the reviewed decisions', async () => {
    const csv = await readFile(sourceCsv, 'utf8');
    const { events } = await loadCuratedData(DATA);
    const rows = parseCsv(csv).slice(1);
    const byText = new Set(events.map((e) => e.evidence_text));
    for (const r of rows) expect(byText.has(r[3]!)).toBe(true);
    const review = LedgerReviewSchema.parse(JSON.parse(await readFile(path.join(DATA, 'ledger-review.json'), 'utf8')));
    expect(importLedger(csv, review.decisions).events).toEqual(events.filter((e) => e.origin === 'ledger'));
  });

  it('maps the ledger types to event types: banked is a grant, policy a policy change, the rest global resets', () => {
    const row = (type: string, n: number) =>
      `2026-01-0${n},10:00:0${n},${type},text ${type},https://example.com/${n},web`;
    const csv = [
      'date_utc,time_utc,type,description,source_url,source_platform',
      row('banked', 1),
      row('policy', 2),
      row('incident', 3),
      row('mystery', 4),
    ].join('\n');
    expect(importLedger(csv).events.map((e) => [e.type, e.reason])).toEqual([
      ['banked_grant', 'banked'],
      ['policy_change', 'policy'],
      ['global_reset', 'incident'],
      ['global_reset', 'other'],
    ]);
  });

  it('parses quoted CSV fields with commas, quotes and newlines', () => {
    expect(parseCsv('a,b\n"x, ""y""\nz",2\r\n')).toEqual([
      ['a', 'b'],
      ['x, "y"\nz', '2'],
    ]);
  });

  it('fails with the file and field named when a record is broken', async () => {
    const dir = await copyData();
    const file = path.join(dir, 'archive', 'codex-reset-ledger.json');
    const doc = JSON.parse(await readFile(file, 'utf8'));
    doc.records[3].type = 'mega_reset';
    await writeFile(file, JSON.stringify(doc));
    await expect(loadCuratedData(dir)).rejects.toThrow(/data\/archive\/codex-reset-ledger\.json: records\.3\.type/);
  });

  it('refuses a verified record without verification notes, naming the file and field', async () => {
    const dir = await copyData();
    await mkdir(path.join(dir, 'verified'), { recursive: true });
    await writeFile(
      path.join(dir, 'verified', 'bad.json'),
      JSON.stringify({
        id: 'verified-bad',
        type: 'global_reset',
        status: 'verified',
        reason: 'incident',
        origin: 'curated',
        time_precision: 'minute',
        time_basis: 'effective',
        announced_at: null,
        observed_at: null,
        effective_at: '2026-11-20T10:00:00Z',
        evidence_text: 'x',
        sources: [{ platform: 'X', url: 'https://x.com/a/status/1' }],
        author_notes: { en: 'a' },
      }),
    );
    await expect(loadCuratedData(dir)).rejects.toThrow(/data\/verified\/bad\.json: verification_notes/);
  });

  it('loads a valid verified record next to the archive', async () => {
    const dir = await copyData();
    await mkdir(path.join(dir, 'verified'), { recursive: true });
    await writeFile(
      path.join(dir, 'verified', 'good.json'),
      JSON.stringify({
        id: 'verified-good',
        type: 'global_reset',
        status: 'verified',
        reason: 'incident',
        origin: 'curated',
        time_precision: 'minute',
        time_basis: 'effective',
        announced_at: '2026-09-12T10:00:00Z',
        observed_at: null,
        effective_at: '2026-09-12T10:05:00Z',
        evidence_text: 'We reset limits.',
        sources: [{ platform: 'X', url: 'https://x.com/a/status/1' }],
        author_notes: { en: 'Seen on two accounts.', de: 'Auf zwei Konten gesehen.' },
        verification_notes: { en: 'Confirmed.' },
        same_as: ['ledger-2026-09-12-0000'],
      }),
    );
    const { events } = await loadCuratedData(dir);
    expect(events.find((e) => e.id === 'verified-good')?.status).toBe('verified');
  });

  it('names the file when it is not JSON', async () => {
    const dir = await copyData();
    await mkdir(path.join(dir, 'reviews'), { recursive: true });
    await writeFile(path.join(dir, 'reviews', 'oops.json'), '{nope');
    await expect(loadCuratedData(dir)).rejects.toThrow(/data\/reviews\/oops\.json: \(root\): not valid JSON/);
  });
});
