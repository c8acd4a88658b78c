// The local sink's plan without a disk: compare, create or stage each file; which directories appear whole; what the
// build dropped.
import { describe, expect, it } from 'vitest';
import { createLocalPlanner } from '../../builder/publish/local-sink.ts';
import { EDGE_STORE_FILE } from '../../builder/contract.ts';

/** The plan over a whole build, phase by phase (each phase a list of keys), as the sink streams it. */
function plan(phases: string[][], files: string[], dirs: string[]) {
  const planner = createLocalPlanner({ files: new Set(files), dirs: new Set(['', ...dirs]) });
  return phases.map((keys) => {
    const writes = Object.fromEntries(keys.map((k) => [k, planner.place(k)]));
    return { writes, tops: planner.endPhase() };
  });
}

describe('createLocalPlanner', () => {
  it('stages a cold build under its topmost new directories, one rename each, phase by phase', () => {
    expect(plan([['api/en/events/a.json', 'api/de/events/a.json'], ['api/en/latest.json']], [], [])).toEqual([
      {
        writes: { 'api/en/events/a.json': { top: 'api' }, 'api/de/events/a.json': { top: 'api' } },
        tops: ['api'],
      },
      // the first phase created api/en, so the next phase's file there is a plain create
      { writes: { 'api/en/latest.json': 'create' }, tops: [] },
    ]);
  });

  it('compares files that exist, creates in directories that exist, and stages in a new one', () => {
    const [phase] = plan(
      [['api/en/latest.json', 'api/en/new.json', 'api/en/events/x.json']],
      ['api/en/latest.json', 'api/en/old.json'],
      ['api', 'api/en'],
    );
    expect(phase!.writes).toEqual({
      'api/en/latest.json': 'compare',
      'api/en/new.json': 'create',
      'api/en/events/x.json': { top: 'api/en/events' },
    });
    expect(phase!.tops).toEqual(['api/en/events']);
  });

  it('deletes what the build dropped, never the edge store file', () => {
    const planner = createLocalPlanner({
      files: new Set(['api/en/latest.json', 'api/en/old.json', EDGE_STORE_FILE]),
      dirs: new Set(['', 'api', 'api/en']),
    });
    expect(planner.leftovers(new Set(['api/en/latest.json']))).toEqual(['api/en/old.json']);
  });
});
