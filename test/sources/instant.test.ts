// readInstant: a source's date string → a UTC instant, the same on every machine whatever its time zone.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readInstant } from '../../builder/sources/instant.ts';

describe('readInstant', () => {
  // Node applies a change of TZ at once: each case runs on a machine 14 hours ahead of UTC, where Date.parse reads a
  // zone-less `2026-11-21T10:00:00` as 2026-11-20T20:00:00Z.
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env.TZ;
    process.env.TZ = 'Pacific/Kiritimati';
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.TZ;
    else process.env.TZ = saved;
  });

  it('runs where the machine zone is not UTC (the cases below would pass by luck otherwise)', () => {
    expect(new Date(Date.parse('2026-11-21T10:00:00')).toISOString()).toBe('2026-11-20T20:00:00.000Z');
  });

  it('reads ISO 8601 / RFC 3339 with Z or an offset, in every spelling sources use', () => {
    const cases: [string, string][] = [
      ['2026-11-21T10:00:00Z', '2026-11-21T10:00:00Z'],
      ['2026-11-21t10:00:00z', '2026-11-21T10:00:00Z'],
      ['2026-11-21T10:00:00.118-08:00', '2026-11-21T18:00:00Z'],
      ['2026-11-21T10:00:00.123456789+00:00', '2026-11-21T10:00:00Z'],
      ['2026-11-21 10:00:00+0530', '2026-11-21T04:30:00Z'],
      ['2026-11-21T10:00+14', '2026-11-20T20:00:00Z'],
      ['  2026-11-21T10:00:00Z  ', '2026-11-21T10:00:00Z'],
      // A leap second is the last moment of its minute.
      ['2016-12-31T23:59:60Z', '2016-12-31T23:59:59Z'],
    ];
    for (const [raw, iso] of cases) expect(readInstant(raw, 'reject'), raw).toEqual({ ok: true, iso });
  });

  it('reads RFC 2822 (RSS pubDate) with a numeric or named zone, and two-digit years', () => {
    const cases: [string, string][] = [
      ['Sat, 21 Nov 2026 10:00:00 GMT', '2026-11-21T10:00:00Z'],
      ['Sat, 21 Nov 2026 10:00:00 +0900', '2026-11-21T01:00:00Z'],
      ['21 Nov 2026 10:00 PST', '2026-11-21T18:00:00Z'],
      ['sat,21 nov 2026 10:00:00 edt', '2026-11-21T14:00:00Z'],
      ['Sat, 21 Nov 26 10:00:00 UT', '2026-11-21T10:00:00Z'],
      ['Sun, 1 Jan 99 00:00:00 -0000', '1999-01-01T00:00:00Z'],
    ];
    for (const [raw, iso] of cases) expect(readInstant(raw, 'reject'), raw).toEqual({ ok: true, iso });
  });

  it('reads a value without a zone as UTC, or refuses it as no_timezone, as the source asks', () => {
    const cases: [string, string][] = [
      ['2026-11-21T10:00:00', '2026-11-21T10:00:00Z'],
      ['2026-11-21 10:00', '2026-11-21T10:00:00Z'],
      ['2026-11-21', '2026-11-21T00:00:00Z'],
      ['Sat, 21 Nov 2026 10:00:00', '2026-11-21T10:00:00Z'],
      ['9999-12-31', '9999-12-31T00:00:00Z'],
    ];
    for (const [raw, iso] of cases) {
      expect(readInstant(raw, 'utc'), raw).toEqual({ ok: true, iso });
      expect(readInstant(raw, 'reject'), raw).toEqual({ ok: false, reason: 'no_timezone' });
    }
  });

  it('refuses what is not a real date-time in those formats (never the machine reading of it) as bad_date', () => {
    for (const raw of [
      '2026/11/21 10:00',
      'Nov 21 2026 10:00 GMT',
      '21.11.2026',
      'yesterday',
      '1763719200',
      '',
      '   ',
      '2026-02-30T10:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-11-21T24:00:00Z',
      '2026-11-21T10:60:00Z',
      '2026-11-21T10:00:00+25:00',
      'Sat, 21 Foo 2026 10:00:00 GMT',
      'Sat, 21 Nov 2026 10:00:00 XYZ',
      'Sat, 21 Nov 2026 10:00:00 A',
      '1969-12-31T23:59:59Z',
      '10000-01-01T00:00:00Z',
      '9999-12-31T23:00:00-02:00',
      `2026-11-21T10:00:00Z${' '.repeat(100)}x`,
    ]) {
      expect(readInstant(raw, 'utc'), raw).toEqual({ ok: false, reason: 'bad_date' });
    }
    expect(readInstant(null, 'utc')).toEqual({ ok: false, reason: 'bad_date' });
    expect(readInstant(undefined, 'reject')).toEqual({ ok: false, reason: 'bad_date' });
  });
});
