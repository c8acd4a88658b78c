// The local sink's write plan without a disk: compare, create or stage each file; which directories appear whole.
import { describe, expect, it } from 'vitest';
import { acrossDirectories, planLocalWrites } from '../../builder/publish/local-plan.ts';
import { PHASE, type OutputDocument } from '../../builder/render/output.ts';

const doc = (key: string, phase: number = PHASE.leaves): OutputDocument => ({ key, body: key, contentType: 'x', contentLanguage: null, cacheControl: 'c', phase });
const kinds = (plan: ReturnType<typeof planLocalWrites>) =>
  plan.phases.map((p) => ({ phase: p.phase, tops: p.tops, writes: Object.fromEntries(p.writes.map((w) => [w.doc.key, w.kind === 'staged' ? `staged ${w.top} ${w.rest}` : w.kind])) }));

describe('planLocalWrites', () => {
  it('stages a cold build under its topmost new directories, one rename each, phase by phase', () => {
    const plan = planLocalWrites([doc('api/en/latest.json', PHASE.summaries), doc('api/en/events/a.json'), doc('api/de/events/a.json')], { files: new Set(), dirs: new Set(['']) });
    expect(kinds(plan)).toEqual([
      { phase: PHASE.leaves, tops: ['api'], writes: { 'api/en/events/a.json': 'staged api en/events/a.json', 'api/de/events/a.json': 'staged api de/events/a.json' } },
      // the leaves phase created api/en, so the summary is a plain create
      { phase: PHASE.summaries, tops: [], writes: { 'api/en/latest.json': 'create' } },
    ]);
    expect(plan.remove).toEqual([]);
  });

  it('compares files that exist, creates in directories that exist, and removes what the build dropped', () => {
    const listing = { files: new Set(['api/en/latest.json', 'api/en/old.json']), dirs: new Set(['', 'api', 'api/en']) };
    const plan = planLocalWrites([doc('api/en/latest.json'), doc('api/en/new.json'), doc('api/en/events/x.json')], listing);
    expect(kinds(plan)[0]!.writes).toEqual({ 'api/en/latest.json': 'compare', 'api/en/new.json': 'create', 'api/en/events/x.json': 'staged api/en/events x.json' });
    expect(plan.phases[0]!.tops).toEqual(['api/en/events']);
    expect(plan.remove).toEqual(['api/en/old.json']);
  });
});

describe('acrossDirectories', () => {
  it('takes one file from each directory in turn', () => {
    const items = ['a/1', 'a/2', 'a/3', 'b/1', 'c/1', 'c/2'].map((k) => ({ doc: doc(k) }));
    expect(acrossDirectories(items).map((i) => i.doc.key)).toEqual(['a/1', 'b/1', 'c/1', 'a/2', 'c/2', 'a/3']);
  });
});
