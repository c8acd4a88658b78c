import { cp, mkdtemp, readFile, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCuratedData } from '../../builder/sources/archive.ts';
import { LedgerReviewSchema, importLedger, ledgerRowsToEvents, parseCsv } from '../../builder/sources/ledger.ts';

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

  it('keeps the announcement text exactly as the ledger has it', async () => {
    const csv = await readFile(new URL('../../../shared/data/codex-reset-ledger.csv', import.meta.url), 'utf8').catch(() => null);
    const { events } = await loadCuratedData(DATA);
    if (csv === null) return; // the shared folder is beside the repo in CI and on developer machines
    const rows = parseCsv(csv).slice(1);
    const byText = new Set(events.map((e) => e.evidence_text));
    for (const r of rows) expect(byText.has(r[3]!)).toBe(true);
    const review = LedgerReviewSchema.parse(JSON.parse(await readFile(path.join(DATA, 'ledger-review.json'), 'utf8')));
    // The committed archive is exactly what `npm run import-ledger` produces from the CSV and the reviewed decisions.
    expect(ledgerRowsToEvents(csv, review.decisions)).toEqual(events.filter((e) => e.origin === 'ledger'));
  });

  it('parses quoted CSV fields with commas, quotes and newlines', () => {
    expect(parseCsv('a,b\n"x, ""y""\nz",2\r\n')).toEqual([['a', 'b'], ['x, "y"\nz', '2']]);
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
        id: 'verified-bad', type: 'global_reset', status: 'verified', reason: 'incident', origin: 'curated', time_precision: 'minute', time_basis: 'effective',
        announced_at: null, observed_at: null, effective_at: '2026-11-20T10:00:00Z', evidence_text: 'x', sources: [{ platform: 'X', url: 'https://x.com/a/status/1' }],
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
        id: 'verified-good', type: 'global_reset', status: 'verified', reason: 'incident', origin: 'curated', time_precision: 'minute', time_basis: 'effective',
        announced_at: '2026-09-12T10:00:00Z', observed_at: null, effective_at: '2026-09-12T10:05:00Z', evidence_text: 'We reset limits.', sources: [{ platform: 'X', url: 'https://x.com/a/status/1' }],
        author_notes: { en: 'Seen on two accounts.', de: 'Auf zwei Konten gesehen.' }, verification_notes: { en: 'Confirmed.' }, same_as: ['ledger-2026-09-12-0000'],
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
