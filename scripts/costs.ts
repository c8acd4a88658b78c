// The monthly cost tables of docs/deploy.md ("What it costs"), computed from one prices object so every figure can be
// traced to a price, its source and an assumption. A price that could not be found in a stored copy of a pricing page
// is `null` and its line says so; it is never guessed. test/docs.test.ts checks docs/deploy.md holds this output.
//   npx tsx scripts/costs.ts
import { pathToFileURL } from 'node:url';

/**
 * US dollars per `per` units beyond the `free` allowance (units included each month at no charge: always-free tier or
 * plan allowance); `usd` null: not found in the sources available here.
 */
const price = (usd: number | null, per: number, free: number, source: string) => ({ usd, per, free, source });
type Price = ReturnType<typeof price>;

const AWS_CLOUDFRONT = 'aws.amazon.com/cloudfront/pricing (stored copy, date unknown)';
const CLOUDBURN = 'cloudburn.io/blog/amazon-eventbridge-pricing (third party, "March 2026")';
const C3X_S3 = 'c3x.dev/blog/s3-request-fees-explained (third party, date unknown)';
const CF_WORKERS = 'developers.cloudflare.com/workers/platform/pricing (stored copy, date unknown)';

const PRICES = {
  cfTransferGb: price(0.085, 1, 1024, `${AWS_CLOUDFRONT}: US/Europe, first 10 TB; 1 TB a month always free`),
  cfHttpsRequests: price(
    null,
    10_000,
    10_000_000,
    `${AWS_CLOUDFRONT}: 10,000,000 requests a month always free; the per-10,000 HTTPS price is not in the stored copy`,
  ),
  cfFunction: price(
    0.1,
    1_000_000,
    2_000_000,
    `free allowance: ${AWS_CLOUDFRONT}; price: cur.vantage.sh/aws/amazoncloudfront (third party, date unknown)`,
  ),
  kvsRead: price(
    null,
    1_000_000,
    2_000_000,
    `${AWS_CLOUDFRONT}: 2,000,000 reads a month always free; the price per read is not in the stored copy`,
  ),
  s3Put: price(0.005, 1000, 0, `${C3X_S3}: S3 Standard PUT/COPY/POST/LIST`),
  s3Get: price(0.0004, 1000, 0, `${C3X_S3}: S3 Standard GET/HEAD`),
  scheduler: price(1, 1_000_000, 14_000_000, CLOUDBURN),
  customEvent: price(1, 1_000_000, 0, CLOUDBURN),
  apiDestination: price(0.2, 1_000_000, 0, CLOUDBURN),
  secret: price(
    0.4,
    1,
    0,
    'hivebook.wiki/wiki/aws-secrets-manager-… (third party, date unknown): $0.40 a secret a month, $0.05 per 10,000 API calls',
  ),
  alarm: price(
    0.1,
    1,
    10,
    'price: c3x.dev/resources/aws/aws_cloudwatch_metric_alarm (third party, date unknown); 10 alarm metrics free: aws.amazon.com/cloudwatch/pricing (stored copy, date unknown)',
  ),
  customMetric: price(
    0.3,
    1,
    10,
    'cal53.calculator.city/cloudwatch-custom-metrics-calculator and hub.pointfive.co (third party, dates unknown): $0.30 a metric-month, 10 free',
  ),
  workersPlan: price(5, 1, 0, `${CF_WORKERS}: Workers Paid, $5 a month minimum`),
  workersRequest: price(
    0.3,
    1_000_000,
    10_000_000,
    `${CF_WORKERS}: 10 million included, +$0.30 per million; requests to static assets free`,
  ),
  workersCpuMs: price(0.02, 1_000_000, 30_000_000, `${CF_WORKERS}: 30 million CPU ms included, +$0.02 per million`),
  workersKvRead: price(
    0.5,
    1_000_000,
    10_000_000,
    'api-evangelist/cloudflare-kv finops (third party, citing developers.cloudflare.com/kv/platform/pricing, date unknown)',
  ),
};

/** What the tables assume, each measured here or stated as an assumption. */
const ASSUMPTIONS = {
  /** /api/latest, the most polled document: mean of the five languages in a real `npm run build` dist/, uncompressed. */
  responseBytes: 1625,
  /** Two triggers a quarter hour each (scheduler at :00/:15/:30/:45, GitHub cron at :07/:22/:37/:52), 30 days. */
  runsPerMonth: 2 * 96 * 30,
  scheduledPerMonth: 96 * 30,
  /**
   * An idle tick as measured on radosgw (`bench/idle-tick.ts`, BENCHMARKS.md "Idle tick"): 1 GET and 1 PUT of the
   * manifest, 115 PUTs of the documents that change every tick, and one LIST every 12th publish (the default cadence).
   */
  getsPerRun: 1,
  putsPerRun: 1 + 115,
  listsPerRun: 1 / 12,
  /** The router reads `freshness` on every request (an event id adds one more read). */
  kvsReadsPerRequest: 1,
  /** Not measured here: the router is a few string operations per request. */
  workerCpuMsPerRequest: 1,
} as const;

const VOLUMES = [1_000_000, 10_000_000, 100_000_000] as const;

/** Dollars for `units` at `p`, or null when the price is unknown. */
function charge(p: Price, units: number): number | null {
  if (p.usd === null) return units <= p.free ? 0 : null;
  return (Math.max(0, units - p.free) / p.per) * p.usd;
}

/** A table row: its item, its price, the units it uses at `r` requests a month, and how they are written. */
type Line = [item: string, price: Price, units: (r: number) => number, label?: (units: number) => string];

const a = ASSUMPTIONS;
const P = PRICES;
const n = (v: number) => Math.round(v).toLocaleString('en-US');
const s3Writes = a.runsPerMonth * (a.putsPerRun + a.listsPerRun);
const FREE = price(0, 1, 0, '');

export const AWS_LINES: Line[] = [
  ['CloudFront HTTPS requests', P.cfHttpsRequests, (r) => r],
  [
    `CloudFront data transfer out (${n(a.responseBytes)} B a response)`,
    P.cfTransferGb,
    (r) => (r * a.responseBytes) / 2 ** 30,
    (gb) => `${gb.toFixed(1)} GB`,
  ],
  ['CloudFront Functions invocations', P.cfFunction, (r) => r],
  ['KeyValueStore reads', P.kvsRead, (r) => r * a.kvsReadsPerRequest],
  ['S3 PUT + LIST (publishing, every run)', P.s3Put, () => s3Writes],
  ['S3 GET (publishing, every run)', P.s3Get, () => a.runsPerMonth * a.getsPerRun],
  ['S3 GET from CloudFront misses (upper bound: every request a miss)', P.s3Get, (r) => r, (u) => `≤ ${n(u)}`],
  ['EventBridge Scheduler invocations', P.scheduler, () => a.scheduledPerMonth],
  ['EventBridge custom events on the bus', P.customEvent, () => a.scheduledPerMonth],
  ['EventBridge API destination deliveries', P.apiDestination, () => a.scheduledPerMonth],
  ['Secrets Manager (the dispatch token)', P.secret, () => 1, () => '1 secret'],
  ['CloudWatch alarms (ApiStale, DispatchFailing)', P.alarm, () => 2, () => '2 alarms'],
  ['CloudWatch custom metric RefreshSucceeded', P.customMetric, () => 1, () => '1 metric'],
];

export const WORKER_LINES: Line[] = [
  ['Workers Paid plan', P.workersPlan, () => 1, () => '1 account'],
  ['Worker requests (the router runs on every API request)', P.workersRequest, (r) => r],
  [
    `Worker CPU time (${a.workerCpuMsPerRequest} ms a request, assumed)`,
    P.workersCpuMs,
    (r) => r * a.workerCpuMsPerRequest,
    (ms) => `${n(ms)} ms`,
  ],
  ['Static assets (documents)', FREE, () => 0, () => 'any'],
  ['Workers KV reads, if freshness is read from KV (1 a request)', P.workersKvRead, (r) => r],
];

const usd = (v: number | null) =>
  v === null ? 'price not found' : v < 0.005 && v > 0 ? '< $0.01' : `$${v.toFixed(2)}`;

export function renderCostTable(lines: readonly Line[]): string {
  const head = `| item | ${VOLUMES.map((v) => `${n(v / 1e6)} M requests`).join(' | ')} |`;
  const rows = lines.map(
    ([item, price, units, label = n]) =>
      `| ${item} | ${VOLUMES.map((v) => `${label(units(v))}: ${usd(charge(price, units(v)))}`).join(' | ')} |`,
  );
  const totals = VOLUMES.map((v) => {
    const costs = lines.map(([, price, units]) => charge(price, units(v)));
    const known = costs.reduce<number>((s, c) => s + (c ?? 0), 0);
    return `**$${known.toFixed(2)}**${costs.some((c) => c === null) ? ' + the lines without a price' : ''}`;
  });
  return [
    head,
    `|---|${VOLUMES.map(() => '---').join('|')}|`,
    ...rows,
    `| total of the priced lines | ${totals.join(' | ')} |`,
  ].join('\n');
}

export function renderSources(): string {
  return Object.entries(PRICES)
    .map(
      ([name, p]) =>
        `- \`${name}\`: ${p.usd === null ? 'no price found' : `$${p.usd} per ${p.per.toLocaleString('en-US')}`}${p.free ? `, ${p.free.toLocaleString('en-US')} free a month` : ''}; ${p.source}`,
    )
    .join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(
    [
      'AWS (this stack):',
      '',
      renderCostTable(AWS_LINES),
      '',
      `The part that does not grow with requests: $${AWS_LINES.reduce((sum, [, price, units]) => sum + (charge(price, units(0)) ?? 0), 0).toFixed(2)} a month.`,
      '',
      'Cloudflare Worker target:',
      '',
      renderCostTable(WORKER_LINES),
      '',
      'Prices:',
      '',
      renderSources(),
    ].join('\n'),
  );
}
