// State loading with recovery, shared by the local and S3 stores, without a disk or a bucket.
import { describe, expect, it } from 'vitest';
import { emptyState } from '../../builder/model/schemas.ts';
import { classifyStored, corruptFileName, corruptObjectKey, recoverState } from '../../builder/state/recovery.ts';

const good = JSON.stringify({ ...emptyState(), updated_at: '2026-11-21T00:00:00.000Z' });
const base = { where: 'state/test', stored: 'S', aside: 'A', reason: 'not valid JSON', lastGoodName: 'L' };

describe('state recovery', () => {
  it('classifies nothing stored, a usable state and an unusable one (with why)', () => {
    expect(classifyStored(null)).toEqual({ kind: 'empty' });
    expect(classifyStored(good)).toMatchObject({ kind: 'ok', state: { updated_at: '2026-11-21T00:00:00.000Z' } });
    expect(classifyStored('{')).toMatchObject({ kind: 'unusable', reason: expect.stringMatching(/^not valid JSON/) });
    expect(classifyStored('[]')).toMatchObject({
      kind: 'unusable',
      reason: expect.stringMatching(/^schema mismatch at \(root\)/),
    });
  });

  it('carries on from the last good copy, saying where the unusable one was kept', () => {
    const r = recoverState({ ...base, lastGood: good });
    expect(r.fromLastGood).toBe(true);
    expect(r.state.updated_at).toBe('2026-11-21T00:00:00.000Z');
    expect(r.warning).toBe(
      '[state/test] S is unusable (not valid JSON); kept it as A and carried on from the last good copy L (saved at 2026-11-21T00:00:00.000Z)',
    );
  });

  it('starts clean when there is no last good copy, or it is unusable too', () => {
    expect(recoverState({ ...base, lastGood: null })).toMatchObject({
      fromLastGood: false,
      state: emptyState(),
      warning: expect.stringMatching(/there is no last good copy, so this run started from a clean state$/),
    });
    expect(recoverState({ ...base, lastGood: '[]' }).warning).toMatch(
      /the last good copy is unusable too \(schema mismatch/,
    );
  });

  it('names what it sets aside from the clock it is given (local) or the ETag (S3)', () => {
    expect(corruptFileName('/s/state.json', new Date('2026-11-21T12:34:56.789Z'))).toBe(
      '/s/state.json.corrupt-2026-11-21T12-34-56-789Z',
    );
    expect(corruptObjectKey('state/corrupt/', 'state/state.json', 'abc')).toBe('state/corrupt/state_state.json.abc');
    expect(corruptObjectKey('state/corrupt/', 'state/state.json', '')).toBe('state/corrupt/state_state.json.no-etag');
  });
});
