// The short soak in `npm test`: the same code as `npm run soak` (test/soak/soak.ts) over fewer ticks, on a slice of
// the ledger so each tick stays around a second or two. Every fault kind still happens at least once (the schedule
// places any the dice skipped), and every invariant is checked after every tick; `npm run soak` runs 1,000 ticks.
import { expect, it } from 'vitest';
import { describeS3, S3_ENDPOINT } from '../s3/helpers.ts';
import { formatSoakReport, INVARIANTS, runSoak } from './soak.ts';

const TICKS = 24;

describeS3('soak: flapping, stalling, flooding and lying sources, S3 faults, killed and overlapping runs', () => {
  it(`holds every invariant after each of ${TICKS} ticks`, async () => {
    const report = await runSoak({ ticks: TICKS, seed: 20, s3Endpoint: S3_ENDPOINT, ledgerRecords: 4 });
    console.log(formatSoakReport(report));
    expect(report.aborted).toBeNull();
    expect(report.ticks).toBe(TICKS);
    // The faults the soak is about all happened: it cannot pass by testing a calm world.
    for (const kind of [
      'source_down',
      'source_stall',
      'source_flood',
      'source_lie',
      'receiver_down',
      'kill_mid_publish',
      'overlapping_run',
      's3_internal_error',
      's3_slow_down',
      's3_hang',
    ]) {
      expect(report.faults[kind] ?? 0, kind).toBeGreaterThan(0);
    }
    expect(report.deliveries).toBeGreaterThan(0);
    expect(report.violations).toEqual(Object.fromEntries(INVARIANTS.map((i) => [i, 0])));
  }, 900_000);
});
