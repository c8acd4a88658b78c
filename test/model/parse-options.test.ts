// parseOptionsFor decides whether zod compiles its fast path for a parse (model/schemas.ts): only for inputs of
// ZOD_FAST_PATH_FROM_RECORDS records or more. Either way a parse must give the same data and the same issues.
import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { StateSchema, ZOD_FAST_PATH_FROM_RECORDS, parseOptionsFor, topLevelRecords } from '../../builder/model/schemas.ts';
import { ArchiveFileSchema } from '../../builder/sources/archive.ts';

describe('parseOptionsFor', () => {
  it('counts the records of the top-level arrays, and compiles the fast path only from the threshold', () => {
    expect(topLevelRecords(null)).toBe(0);
    expect(topLevelRecords([[1], [2]])).toBe(2); // an array's values are its own entries
    expect(topLevelRecords({ a: [1, 2], b: { c: [1, 2, 3] }, d: [3] })).toBe(3);
    const records = (n: number) => ({ events: Array.from({ length: n }, () => ({})) });
    expect(parseOptionsFor(records(ZOD_FAST_PATH_FROM_RECORDS - 1))).toEqual({ jitless: true });
    expect(parseOptionsFor(records(ZOD_FAST_PATH_FROM_RECORDS))).toEqual({ jitless: false });
  });

  it('parses the real ledger and a broken state the same with and without the fast path', async () => {
    const dir = new URL('../../data/archive/', import.meta.url);
    const [file] = (await readdir(dir)).filter((f) => f.endsWith('.json'));
    const raw: unknown = JSON.parse(await readFile(new URL(file!, dir), 'utf8'));
    const fast = ArchiveFileSchema.safeParse(raw, { jitless: false });
    const slow = ArchiveFileSchema.safeParse(raw, { jitless: true });
    expect(fast.success).toBe(true);
    expect(slow).toEqual(fast);
    const broken = { checks: [{ source: 'x', ok: 'yes' }], signals: 'none', forecast_log: [{}] };
    const a = StateSchema.safeParse(broken, { jitless: false });
    const b = StateSchema.safeParse(broken, { jitless: true });
    expect(a.success).toBe(false);
    expect(b.error?.issues).toEqual(a.error?.issues);
  });
});
