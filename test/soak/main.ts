// `npm run soak [-- --ticks 1000] [--seed 20] [--ledger N] [--stop-after N] [--max-seconds S] [--quiet]`: the soak against the radosgw named by
// RESET_TEST_S3_ENDPOINT (scripts/rgw.sh start .rgw 7480 && source .rgw/env). Prints one line per tick (unless
// --quiet) and the figures; exits 1 when an invariant was violated or the soak stopped early.
import { parseArgs } from 'node:util';
import { formatSoakReport, runSoak } from './soak.ts';

const { values } = parseArgs({
  options: {
    ticks: { type: 'string', default: '1000' },
    seed: { type: 'string', default: '20' },
    'stop-after': { type: 'string' },
    ledger: { type: 'string' },
    'max-seconds': { type: 'string' },
    quiet: { type: 'boolean', default: false },
  },
});
const ticks = Number(values.ticks);
const seed = Number(values.seed);
const endpoint = process.env.RESET_TEST_S3_ENDPOINT ?? '';
if (!Number.isInteger(ticks) || ticks < 1 || !Number.isInteger(seed)) {
  console.error('soak: --ticks and --seed take whole numbers (ticks at least 1)');
  process.exit(2);
}
if (endpoint === '') {
  console.error(
    'soak: RESET_TEST_S3_ENDPOINT is not set (start radosgw: bash scripts/rgw.sh start .rgw 7480 && set -a && source .rgw/env && set +a)',
  );
  process.exit(2);
}
const report = await runSoak({
  ticks,
  seed,
  ...(values['max-seconds'] ? { maxSeconds: Number(values['max-seconds']) } : {}),
  ...(values.ledger ? { ledgerRecords: Number(values.ledger) } : {}),
  ...(values['stop-after'] ? { stopAfter: Number(values['stop-after']) } : {}),
  s3Endpoint: endpoint,
  ...(values.quiet ? {} : { log: (l: string) => console.log(l) }),
});
console.log(`\n${formatSoakReport(report)}`);
process.exitCode = report.violationsTotal > 0 || report.aborted !== null ? 1 : 0;
