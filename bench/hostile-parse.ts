// Benchmark: worst-case parses. The most hostile 2 MiB inputs we could build for each parser (status page JSON,
// tracker JSON, RSS, Atom, JSON Feed) must each parse or be refused in under 1 s. Every input is 2 MiB, twice the
// sources' own 1 MiB size caps, so it is run twice: through the real budget (refused by size at once) and with the
// size cap lifted to 4 MiB, which is the figure that matters: the parser and validation themselves on 2 MiB.
//
//   npx tsx bench/hostile-parse.ts [--quick]
import { FEED_BUDGET, JSON_BUDGET, type ParseBudget } from '../builder/sources/budget.ts';
import type { SourceConfig } from '../builder/sources/fetcher.ts';
import { parseTrackerPage, takeTrackerRecords } from '../builder/sources/reset-tracker.ts';
import { parseFeed } from '../builder/sources/signal-feeds.ts';
import { parseStatusPage } from '../builder/sources/status-page.ts';
import type { Event } from '../builder/model/schemas.ts';
import { totalRejected, type RejectCounts } from '../builder/sources/sanitize.ts';
import { BENCH_NOW, fmtMs } from './lib.ts';

const LIMIT_MS = 1_000;
const MiB = 1024 * 1024;
const SIZE = 2 * MiB;
const AS_OF = new Date(BENCH_NOW);
const budget = (b: ParseBudget, lift: boolean): ParseBudget => (lift ? { ...b, maxBytes: 4 * MiB } : b);

/** head + unit repeated + tail, exactly filling SIZE characters (all ASCII, so bytes too) or just under. */
function fill(head: string, unit: string, tail = ''): string {
  return head + unit.repeat(Math.floor((SIZE - head.length - tail.length) / unit.length)) + tail;
}

/** The hostile JSON cases, inside a document that opens with `head` and closes with `tail`. */
function jsonCases(head: string, tail: string): [string, string][] {
  return [
    ['deep nesting (closed)', `${head}${'['.repeat(SIZE / 2 - 100)}${']'.repeat(SIZE / 2 - 100)}${tail}`],
    ['deep nesting (unclosed)', fill(head, '[')],
    ['long key name', fill(`${head}{"`, 'k', `":1}${tail}`)],
    ['long string value', fill(`${head}{"id":"`, 'v', `"}${tail}`)],
    ['escape run', fill(`${head}{"id":"`, '\\u0000', `"}${tail}`)],
    ['many tiny items', fill(`${head}[`, '{},', `{}]${tail}`)],
    ['many keys', `${head}{${Array.from({ length: 180_000 }, (_, i) => `"k${i}":0`).join(',')}}${tail}`],
    ['unclosed string', fill(`${head}{"id":"`, 'x')],
    ['not JSON (markup)', fill('<html>', '<b>x</b>')],
  ];
}

function trackerRecords(n: number, text: string): string {
  const data = Array.from({ length: n }, (_, i) => ({
    id: `r${i}`,
    reset_type: 'regular',
    announced_at: '2026-11-20T10:00:00Z',
    text,
    source: { type: 'x_post', author: '<b>x</b>', url: `https://x.test/${i}` },
  }));
  return JSON.stringify({ data, pagination: { has_more: false, next_cursor: null } });
}

const lol =
  '<!DOCTYPE lolz [<!ENTITY lol "lol">' +
  Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`).join('') +
  ']>';

function xmlCases(root: string, close: string, item: string, itemBody: string): [string, string][] {
  const open = `${root}<title>codex</title>`;
  const inTitle = (unit: string) => fill(`${open}<${item}><title>`, unit, `</title></${item}>${close}`);
  return [
    ['attribute run, unclosed quotes (the old quadratic case)', fill(`${open}<${item}`, ' a="b')],
    ['attribute run, unquoted', fill(`${open}<${item}`, ' a=a')],
    ['attribute-like text', inTitle('a="" ')],
    [
      'many attributes',
      `${open}<${item}${Array.from({ length: 200_000 }, (_, i) => ` a${i}="x"`).join('')}/>${close}`.slice(0, SIZE),
    ],
    ['long element name', fill('<', 'a', '/>')],
    ['long attribute name', fill(`${open}<${item} `, 'a', `="x"/>${close}`)],
    ['deep nesting (unclosed)', fill(open, '<a>')],
    ['deep nesting (closed)', `${open}${'<a>'.repeat(SIZE / 8)}${'</a>'.repeat(SIZE / 8)}${close}`],
    [
      'entity bomb (billion laughs)',
      fill(`<?xml version="1.0"?>${lol}${open}<${item}><title>`, '&lol9;', `</title></${item}>${close}`),
    ],
    ['entity references', inTitle('&amp;&#x41;&nbsp;')],
    ['unclosed tags', fill(open, `<${item}><title>x`)],
    ['many valid items', fill(open, `<${item}>${itemBody}</${item}>`, close)],
    ['CDATA unclosed', fill(`${open}<${item}><title><![CDATA[`, 'x]]')],
    ['comment unclosed', fill(`${open}<!--`, '--x')],
    ['run of <', fill(`${open}<${item}><title>`, '<')],
  ];
}

const refused = (r: { detail: { code: string } }) => `refused: ${r.detail.code}`;

function feed(body: string, lift: boolean): string {
  const r = parseFeed(body, AS_OF, budget(FEED_BUDGET, lift));
  return r.ok ? `parsed (${r.feed.items.length} items)` : refused(r);
}

function statusPage(body: string, lift: boolean): string {
  const url = 'https://status.example.test/api/v2/summary.json';
  const config: SourceConfig = { id: 'status-page', kind: 'status_page', url };
  const r = parseStatusPage(config, body, AS_OF, budget(JSON_BUDGET, lift));
  return r.ok ? `parsed (${r.data.status?.components.length} components)` : refused(r);
}

function tracker(body: string, lift: boolean): string {
  const r = parseTrackerPage(body, budget(JSON_BUDGET, lift));
  if (!r.ok) return refused(r);
  const events = new Map<string, Event>();
  const rejected: RejectCounts = {};
  const taken = takeTrackerRecords(r.value.data, AS_OF, events, { rejected, noted: {} }, 1_000);
  return `parsed (${events.size} events, ${totalRejected(rejected)} rejected${taken.capped ? ', record cap' : ''})`;
}

const SUMMARY_HEAD = `{"page":{"id":"p","name":"n","url":"https://s.test","updated_at":null},"status":{"indicator":"none","description":"ok"},"components":`;
const JSON_FEED_HEAD = '{"version":"https://jsonfeed.org/version/1.1","items":';
const PARSERS: { name: string; cases: [string, string][]; run: (body: string, lift: boolean) => string }[] = [
  {
    name: 'status page (JSON)',
    cases: [
      ...jsonCases(SUMMARY_HEAD, '}'),
      [
        'flood of components',
        fill(
          `${SUMMARY_HEAD}[`,
          '{"id":"c","name":"Codex <b>x</b>","status":"major_outage"},',
          '{"id":"c","name":"n","status":"x"}]}',
        ),
      ],
      [
        'huge description',
        fill(
          '{"page":{"id":"p","name":"n","url":"javascript:x","updated_at":null},"status":{"indicator":"x","description":"',
          '<b>very</b> ',
          '"},"components":[]}',
        ),
      ],
    ],
    run: statusPage,
  },
  {
    name: 'tracker (JSON)',
    cases: [
      ...jsonCases('{"pagination":{"has_more":false},"data":', '}'),
      ['5,000 records of markup text', trackerRecords(5_000, '<b>reset</b> <i>x</i> '.repeat(14))],
      ['700 records of 3 KB text', trackerRecords(700, '<b>reset</b> '.repeat(230))],
    ],
    run: tracker,
  },
  {
    name: 'RSS',
    cases: xmlCases(
      '<rss version="2.0"><channel>',
      '</channel></rss>',
      'item',
      '<title>Codex reset</title><link>https://e.test/a</link>',
    ),
    run: feed,
  },
  {
    name: 'Atom',
    cases: xmlCases(
      '<feed xmlns="http://www.w3.org/2005/Atom">',
      '</feed>',
      'entry',
      '<id>x</id><title>Codex reset</title><link href="https://e.test/a"/>',
    ),
    run: feed,
  },
  {
    name: 'JSON Feed',
    cases: [
      ...jsonCases(JSON_FEED_HEAD, '}'),
      [
        'flood of items',
        fill(`${JSON_FEED_HEAD}[`, '{"id":"1","title":"Codex reset <b>x</b>","url":"javascript:x"},', '{"id":"2"}]}'),
      ],
    ],
    run: feed,
  },
];

/** The worst time of `reps` runs, and the last run's outcome. */
function time(f: () => string, reps: number): { ms: number; outcome: string } {
  let ms = 0;
  let outcome = '';
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    outcome = f();
    ms = Math.max(ms, performance.now() - t);
  }
  return { ms, outcome };
}

const reps = process.argv.includes('--quick') ? 1 : 3;
let worst = { label: '', ms: 0 };
const over: string[] = [];
console.log(`${reps === 1 ? 'one run' : `worst of ${reps} runs`} each, limit ${fmtMs(LIMIT_MS)}\n`);
console.log(
  '| parser | input | KiB | outcome (size cap lifted) | with size cap | size cap lifted |\n|---|---|---|---|---|---|',
);
for (const p of PARSERS) {
  for (const [input, body] of p.cases) {
    const capped = time(() => p.run(body, false), reps);
    const lift = time(() => p.run(body, true), reps);
    const kib = Math.round(Buffer.byteLength(body) / 1024);
    console.log(`| ${p.name} | ${input} | ${kib} | ${lift.outcome} | ${fmtMs(capped.ms)} | ${fmtMs(lift.ms)} |`);
    if (lift.ms > worst.ms) worst = { label: `${p.name}, ${input}`, ms: lift.ms };
    if (Math.max(capped.ms, lift.ms) >= LIMIT_MS) over.push(`${p.name} ${input}`);
  }
}
const verdict = over.length === 0 ? 'every input under the limit' : `OVER THE LIMIT: ${over.join('; ')}`;
console.log(`\nworst: ${worst.label}: ${fmtMs(worst.ms)}; ${verdict}`);
if (over.length > 0) process.exitCode = 1;
