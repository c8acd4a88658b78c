// The monthly cost tables of docs/deploy.md ("What it costs"), computed from one prices object so every figure can be
// traced to a price, its source and an assumption. A price that could not be found in a stored copy of a pricing page
// is `null` and its line says so; it is never guessed. test/docs.test.ts checks docs/deploy.md holds this output.
//   npx tsx scripts/costs.ts
import { pathToFileURL } from 'node:url';

interface Price {
  /** US dollars per `per` units beyond the free allowance; null: not found in the sources available here. */
  usd: number | null;
  per: number;
  /** Units included each month at no charge (always-free tier or plan allowance). */
  free: number;
  source: string;
}

const AWS_CLOUDFRONT = 'aws.amazon.com/cloudfront/pricing (stored copy, date unknown)';
const CLOUDBURN = 'cloudburn.io/blog/amazon-eventbridge-pricing (third party, "March 2026")';
const CF_WORKERS = 'developers.cloudflare.com/workers/platform/pricing (stored copy, date unknown)';

export const PRICES = {
  cfTransferGb: {
    usd: 0.085,
    per: 1,
    free: 1024,
    source: `${AWS_CLOUDFRONT}: US/Europe, first 10 TB; 1 TB a month always free`,
  },
  cfHttpsRequests: {
    usd: null,
    per: 10_000,
    free: 10_000_000,
    source: `${AWS_CLOUDFRONT}: 10,000,000 requests a month always free; the per-10,000 HTTPS price is not in the stored copy`,
  },
  cfFunction: {
    usd: 0.1,
    per: 1_000_000,
    free: 2_000_000,
    source: `free allowance: ${AWS_CLOUDFRONT}; price: cur.vantage.sh/aws/amazoncloudfront (third party, date unknown)`,
  },
  kvsRead: {
    usd: null,
    per: 1_000_000,
    free: 2_000_000,
    source: `${AWS_CLOUDFRONT}: 2,000,000 reads a month always free; the price per read is not in the stored copy`,
  },
  s3Put: {
    usd: 0.005,
    per: 1000,
    free: 0,
    source: 'c3x.dev/blog/s3-request-fees-explained (third party, date unknown): S3 Standard PUT/COPY/POST/LIST',
  },
  s3Get: {
    usd: 0.0004,
    per: 1000,
    free: 0,
    source: 'c3x.dev/blog/s3-request-fees-explained (third party, date unknown): S3 Standard GET/HEAD',
  },
  scheduler: { usd: 1, per: 1_000_000, free: 14_000_000, source: CLOUDBURN },
  customEvent: { usd: 1, per: 1_000_000, free: 0, source: CLOUDBURN },
  apiDestination: { usd: 0.2, per: 1_000_000, free: 0, source: CLOUDBURN },
  secret: {
    usd: 0.4,
    per: 1,
    free: 0,
    source:
      'hivebook.wiki/wiki/aws-secrets-manager-… (third party, date unknown): $0.40 a secret a month, $0.05 per 10,000 API calls',
  },
  alarm: {
    usd: 0.1,
    per: 1,
    free: 10,
    source:
      'price: c3x.dev/resources/aws/aws_cloudwatch_metric_alarm (third party, date unknown); 10 alarm metrics free: aws.amazon.com/cloudwatch/pricing (stored copy, date unknown)',
  },
  customMetric: {
    usd: 0.3,
    per: 1,
    free: 10,
    source:
      'cal53.calculator.city/cloudwatch-custom-metrics-calculator and hub.pointfive.co (third party, dates unknown): $0.30 a metric-month, 10 free',
  },
  workersPlan: { usd: 5, per: 1, free: 0, source: `${CF_WORKERS}: Workers Paid, $5 a month minimum` },
  workersRequest: {
    usd: 0.3,
    per: 1_000_000,
    free: 10_000_000,
    source: `${CF_WORKERS}: 10 million included, +$0.30 per million; requests to static assets free`,
  },
  workersCpuMs: {
    usd: 0.02,
    per: 1_000_000,
    free: 30_000_000,
    source: `${CF_WORKERS}: 30 million CPU ms included, +$0.02 per million`,
  },
  workersKvRead: {
    usd: 0.5,
    per: 1_000_000,
    free: 10_000_000,
    source:
      'api-evangelist/cloudflare-kv finops (third party, citing developers.cloudflare.com/kv/platform/pricing, date unknown)',
  },
} satisfies Record<string, Price>;

/** What the tables assume, each measured here or stated as an assumption. */
export const ASSUMPTIONS = {
  /** /api/latest, the most polled document: mean of the five languages in a real `npm run build` dist/, uncompressed. */
  responseBytes: 1625,
  /** Two triggers a quarter hour each (scheduler at :00/:15/:30/:45, GitHub cron at :07/:22/:37/:52), 30 days. */
  runsPerMonth: 2 * 96 * 30,
  scheduledPerMonth: 96 * 30,
  /**
   * Requests per idle tick as priced here: 1 GET and 61 PUT, one LIST every 12th publish. BENCHMARKS.md "Idle tick"
   * measures 1 GET and 106 PUT (the dated unknown variants included); this table does not count them yet.
   */
  putsPerRun: 61,
  getsPerRun: 1,
  listsPerRun: 1 / 12,
  /** The router reads `freshness` on every request (an event id adds one more read). */
  kvsReadsPerRequest: 1,
  /** Not measured here: the router is a few string operations per request. */
  workerCpuMsPerRequest: 1,
  secrets: 1,
  alarms: 2,
  customMetrics: 1,
} as const;

export const VOLUMES = [1_000_000, 10_000_000, 100_000_000] as const;

/** Dollars for `units` at `p`, or null when the price is unknown. */
function charge(p: Price, units: number): number | null {
  if (p.usd === null) return units <= p.free ? 0 : null;
  return (Math.max(0, units - p.free) / p.per) * p.usd;
}

interface Line {
  item: string;
  units: (requests: number) => string;
  cost: (requests: number) => number | null;
}

const a = ASSUMPTIONS;
const P = PRICES;
const n = (v: number) => Math.round(v).toLocaleString('en-US');

export const AWS_LINES: Line[] = [
  { item: 'CloudFront HTTPS requests', units: (r) => n(r), cost: (r) => charge(P.cfHttpsRequests, r) },
  {
    item: `CloudFront data transfer out (${n(a.responseBytes)} B a response)`,
    units: (r) => `${((r * a.responseBytes) / 2 ** 30).toFixed(1)} GB`,
    cost: (r) => charge(P.cfTransferGb, (r * a.responseBytes) / 2 ** 30),
  },
  { item: 'CloudFront Functions invocations', units: (r) => n(r), cost: (r) => charge(P.cfFunction, r) },
  {
    item: 'KeyValueStore reads',
    units: (r) => n(r * a.kvsReadsPerRequest),
    cost: (r) => charge(P.kvsRead, r * a.kvsReadsPerRequest),
  },
  {
    item: 'S3 PUT + LIST (publishing, every run)',
    units: () => n(a.runsPerMonth * (a.putsPerRun + a.listsPerRun)),
    cost: () => charge(P.s3Put, a.runsPerMonth * (a.putsPerRun + a.listsPerRun)),
  },
  {
    item: 'S3 GET (publishing, every run)',
    units: () => n(a.runsPerMonth * a.getsPerRun),
    cost: () => charge(P.s3Get, a.runsPerMonth * a.getsPerRun),
  },
  {
    item: 'S3 GET from CloudFront misses (upper bound: every request a miss)',
    units: (r) => `≤ ${n(r)}`,
    cost: (r) => charge(P.s3Get, r),
  },
  {
    item: 'EventBridge Scheduler invocations',
    units: () => n(a.scheduledPerMonth),
    cost: () => charge(P.scheduler, a.scheduledPerMonth),
  },
  {
    item: 'EventBridge custom events on the bus',
    units: () => n(a.scheduledPerMonth),
    cost: () => charge(P.customEvent, a.scheduledPerMonth),
  },
  {
    item: 'EventBridge API destination deliveries',
    units: () => n(a.scheduledPerMonth),
    cost: () => charge(P.apiDestination, a.scheduledPerMonth),
  },
  {
    item: 'Secrets Manager (the dispatch token)',
    units: () => `${a.secrets} secret`,
    cost: () => charge(P.secret, a.secrets),
  },
  {
    item: 'CloudWatch alarms (ApiStale, DispatchFailing)',
    units: () => `${a.alarms} alarms`,
    cost: () => charge(P.alarm, a.alarms),
  },
  {
    item: 'CloudWatch custom metric RefreshSucceeded',
    units: () => `${a.customMetrics} metric`,
    cost: () => charge(P.customMetric, a.customMetrics),
  },
];

export const WORKER_LINES: Line[] = [
  { item: 'Workers Paid plan', units: () => '1 account', cost: () => charge(P.workersPlan, 1) },
  {
    item: 'Worker requests (the router runs on every API request)',
    units: (r) => n(r),
    cost: (r) => charge(P.workersRequest, r),
  },
  {
    item: `Worker CPU time (${a.workerCpuMsPerRequest} ms a request, assumed)`,
    units: (r) => `${n(r * a.workerCpuMsPerRequest)} ms`,
    cost: (r) => charge(P.workersCpuMs, r * a.workerCpuMsPerRequest),
  },
  { item: 'Static assets (documents)', units: () => 'any', cost: () => 0 },
  {
    item: 'Workers KV reads, if freshness is read from KV (1 a request)',
    units: (r) => n(r),
    cost: (r) => charge(P.workersKvRead, r),
  },
];

const usd = (v: number | null) =>
  v === null ? 'price not found' : v < 0.005 && v > 0 ? '< $0.01' : `$${v.toFixed(2)}`;

export function renderCostTable(lines: readonly Line[]): string {
  const head = `| item | ${VOLUMES.map((v) => `${n(v / 1e6)} M requests`).join(' | ')} |`;
  const rows = lines.map(
    (l) => `| ${l.item} | ${VOLUMES.map((v) => `${l.units(v)}: ${usd(l.cost(v))}`).join(' | ')} |`,
  );
  const totals = VOLUMES.map((v) => {
    const costs = lines.map((l) => l.cost(v));
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
