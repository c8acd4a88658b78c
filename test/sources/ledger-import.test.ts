import { describe, expect, it } from 'vitest';
import type { LedgerDecision } from '../../builder/sources/ledger.ts';
import { LedgerImportError, importLedger } from '../../scripts/ledger-import.ts';

const HEADER = 'date_utc,time_utc,type,description,source_url,source_platform\n';
// Post 2092311059197808936 was created at 2026-08-25T18:00:04Z (snowflake); the row says 14:30:00.
const OFF_ROW =
  '2026-08-25,14:30:00,other,"@dtzy_88 Ah yeah, forgot to say",https://x.com/thsottiaux/status/2092311059197808936,X\n';
// Post 2071740419030053227 was created at 2026-06-29T23:39:41Z, as the row says.
const WINDOW_ROW =
  '2026-06-29,23:39:41,incident,will be fully reset again in the next hour,https://x.com/thsottiaux/status/2071740419030053227,X\n';

const decision = (row: string, post_id: string | null, extra: Partial<LedgerDecision>): LedgerDecision => ({
  row,
  post_id,
  decision: 'test',
  why: 'test',
  evidence: ['test'],
  reviewed_by: 't',
  reviewed_at: '2026-11-23',
  explains_time_disagreement: false,
  date_only: false,
  ...extra,
});

describe('importLedger: times from the evidence', () => {
  it('refuses a row whose time differs from its post by more than a minute when no reviewed decision explains it', () => {
    expect(() => importLedger(HEADER + OFF_ROW)).toThrow(LedgerImportError);
    expect(() => importLedger(HEADER + OFF_ROW)).toThrow(/2026-08-25T14:30:00Z.*2092311059197808936.*-12604 s/);
  });

  it('with a reviewed decision: the post time is announced_at, the ledger time the observation, and the report lists it', () => {
    const { events, report } = importLedger(HEADER + OFF_ROW, [
      decision('2026-08-25T14:30:00Z', '2092311059197808936', { explains_time_disagreement: true }),
    ]);
    expect(events[0]).toMatchObject({
      id: 'ledger-2026-08-25-1430',
      announced_at: '2026-08-25T18:00:04Z',
      observed_at: '2026-08-25T14:30:00Z',
      time_basis: 'observation',
    });
    expect(report.disagreements).toEqual([
      {
        row: '2026-08-25T14:30:00Z',
        post_id: '2092311059197808936',
        post_at: '2026-08-25T18:00:04Z',
        record_at: '2026-08-25T14:30:00Z',
        difference_s: -12604,
        explained: true,
      },
    ]);
  });

  it('a row within a minute of its post takes the post time as announced_at and reports nothing', () => {
    const { events, report } = importLedger(HEADER + WINDOW_ROW);
    expect(events[0]).toMatchObject({
      announced_at: '2026-06-29T23:39:41Z',
      observed_at: null,
      time_basis: 'announcement',
    });
    expect(report.disagreements).toEqual([]);
  });

  it('an announced window makes the window end the effective time, which decides the UTC date', () => {
    const { events } = importLedger(HEADER + WINDOW_ROW, [
      decision('2026-06-29T23:39:41Z', '2071740419030053227', { effective_within_minutes: 60 }),
    ]);
    expect(events[0]).toMatchObject({
      announced_at: '2026-06-29T23:39:41Z',
      effective_at: '2026-06-30T00:39:41Z',
      time_basis: 'effective',
    });
  });

  it('reads date_utc and time_utc as UTC on any machine, and refuses a time in another form instead of guessing', () => {
    const saved = process.env.TZ;
    process.env.TZ = 'America/Los_Angeles';
    try {
      const { events } = importLedger(HEADER + WINDOW_ROW, [
        decision('2026-06-29T23:39:41Z', '2071740419030053227', { effective_within_minutes: 60 }),
      ]);
      expect(events[0]).toMatchObject({ announced_at: '2026-06-29T23:39:41Z', effective_at: '2026-06-30T00:39:41Z' });
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
    for (const time of ['23:39:41+02:00', '23:39', '23:39:41Z', '24:00:00', '11:39:41 PM']) {
      expect(() => importLedger(HEADER + WINDOW_ROW.replace('23:39:41', time)), time).toThrow(/bad time_utc/);
    }
  });

  it('cleans the description like any source text: invisible characters and markup go', () => {
    const { events } = importLedger(
      HEADER + WINDOW_ROW.replace('will be fully reset', 'will be \u202Efully\u200B <b>reset'),
    );
    expect(events[0]!.evidence_text).toBe('will be fully  reset again in the next hour');
  });

  it('refuses a decision that matches no row, or names another post than the row cites', () => {
    expect(() => importLedger(HEADER + WINDOW_ROW, [decision('2026-06-30T00:00:00Z', null, {})])).toThrow(
      /matches no ledger row/,
    );
    expect(() => importLedger(HEADER + WINDOW_ROW, [decision('2026-06-29T23:39:41Z', '1', {})])).toThrow(
      /names post 1/,
    );
  });

  it('reclassifies a row by decision', () => {
    const row =
      "2026-06-28,23:54:07,banked,I have reset everyone's Codex usage limits,https://x.com/thsottiaux/status/2071381664853319742,X\n";
    const { events } = importLedger(HEADER + row, [
      decision('2026-06-28T23:54:07Z', '2071381664853319742', { set_type: 'global_reset', set_reason: 'incident' }),
    ]);
    expect(events[0]).toMatchObject({
      type: 'global_reset',
      reason: 'incident',
      author_notes: { en: 'Reviewed 2026-11-23: test' },
    });
  });
});
