// The local sink's write plan without a disk: compare, create or stage each file; which directories appear whole.
import { describe, expect, it } from 'vitest';
import { createLocalPlanner, leftoverFiles, type DirectoryListing } from '../../builder/publish/local-sink.ts';
import { EDGE_STORE_FILE } from '../../builder/contract.ts';
import { PHASE, type OutputDocument } from '../../builder/render/output.ts';

const doc = (key: string, phase: number = PHASE.leaves): OutputDocument => ({
  key,
  body: key,
  contentType: 'x',
  contentLanguage: null,
  cacheControl: 'c',
  phase,
});

/** The planner over a whole build, phase by phase, as the sink streams it. */
function plan(docs: OutputDocument[], listing: DirectoryListing) {
  const planner = createLocalPlanner(listing);
  const phases: { phase: number; tops: string[]; writes: Record<string, string> }[] = [];
  for (const phase of [...new Set(docs.map((d) => d.phase))].sort((a, b) => a - b)) {
    const writes = Object.fromEntries(
      docs
        .filter((d) => d.phase === phase)
        .map((d) => {
          const w = planner.place(d);
          return [d.key, w.kind === 'staged' ? `staged ${w.top} ${w.rest}` : w.kind];
        }),
    );
    phases.push({ phase, writes, tops: planner.endPhase() });
  }
  return phases;
}

describe('createLocalPlanner', () => {
  it('stages a cold build under its topmost new directories, one rename each, phase by phase', () => {
    const phases = plan(
      [doc('api/en/latest.json', PHASE.summaries), doc('api/en/events/a.json'), doc('api/de/events/a.json')],
      { files: new Set(), dirs: new Set(['']) },
    );
    expect(phases).toEqual([
      {
        phase: PHASE.leaves,
        tops: ['api'],
        writes: {
          'api/en/events/a.json': 'staged api en/events/a.json',
          'api/de/events/a.json': 'staged api de/events/a.json',
        },
      },
      // the leaves phase created api/en, so the summary is a plain create
      { phase: PHASE.summaries, tops: [], writes: { 'api/en/latest.json': 'create' } },
    ]);
  });

  it('compares files that exist, creates in directories that exist, and stages in a new one', () => {
    const listing = { files: new Set(['api/en/latest.json', 'api/en/old.json']), dirs: new Set(['', 'api', 'api/en']) };
    const [leaves] = plan([doc('api/en/latest.json'), doc('api/en/new.json'), doc('api/en/events/x.json')], listing);
    expect(leaves!.writes).toEqual({
      'api/en/latest.json': 'compare',
      'api/en/new.json': 'create',
      'api/en/events/x.json': 'staged api/en/events x.json',
    });
    expect(leaves!.tops).toEqual(['api/en/events']);
  });
});

describe('leftoverFiles', () => {
  it('removes what the build dropped, never the edge store file', () => {
    expect(
      leftoverFiles(['api/en/latest.json', 'api/en/old.json', EDGE_STORE_FILE], new Set(['api/en/latest.json'])),
    ).toEqual(['api/en/old.json']);
  });
});
