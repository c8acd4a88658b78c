// `reset-status`: has Codex reset today? Exit codes: 0 answered, 2 unknown, stale or (with --plan) not stated, 1 error
// (usage, network, HTTP).
import { parseArgs } from 'node:util';
import { cacheDir, openDiskCache } from './cache.ts';
import {
  createResetStatusClient,
  creditLine,
  creditsOf,
  freshAt,
  latestFromCache,
  planAnswer,
  ResetStatusError,
  trustedProbabilities,
  type Credit,
  type PlanAnswer,
  type ResetStatusClient,
} from './client.ts';
import {
  API_MAX_AGE_MS,
  API_URL_ENV,
  DEFAULT_HISTORY_LIMIT,
  EVENT_TYPES,
  MAX_HISTORY_EVENTS,
  LANGS,
  langFromLocale,
  PLANS,
  NO_API_URL_MESSAGE,
  PRODUCTION_API_URL,
  type Lang,
} from './config.ts';
import {
  answerKind,
  escapeJson,
  renderEvent,
  renderEvents,
  renderForecast,
  renderPlanToday,
  renderStatusline,
  renderToday,
  showLine,
  todayAnswer,
  type Line,
} from './format.ts';
import { runMcpServer } from './mcp.ts';

const STATUSLINE_CACHE_MS = 60_000;
const WATCH_DEFAULT_INTERVAL_MS = 60_000;
/** `watch` polls at most once a second, whatever the response's max-age says (a max-age of 0 would have it spin). */
const WATCH_MIN_WAIT_MS = 1_000;
/** The longest wait `watch` takes from a max-age (and the largest `--interval`): a larger one would silence it. */
const WATCH_MAX_WAIT_MS = 3_600_000;

const EXIT_ANSWERED = 0;
const EXIT_ERROR = 1;
const EXIT_UNKNOWN = 2;
/** An answer that is not known (or, with --plan, not stated) exits 2. */
const exitOf = (answer: PlanAnswer | 'no') =>
  answer === 'unknown' || answer === 'not_stated' ? EXIT_UNKNOWN : EXIT_ANSWERED;

const USAGE = `Usage: reset-status [command] [options]
Commands:
  today              (default) has Codex reset today? one line: answer, reason, last check, announced reset
                     [--plan free|go|plus|pro|business|enterprise|edu: did today's reset reach this plan?
                      yes / not for your plan / no reset today / not stated, and until when it is still landing]
  forecast           chance of a global reset within 24 h / 48 h (a forecast, not an announcement)
  history            recorded events, newest first   [--type global_reset|banked_grant|policy_change]
                     [--limit N (default ${DEFAULT_HISTORY_LIMIT}) | --all (at most ${MAX_HISTORY_EVENTS}) | --page N (one archived page, 1 = oldest)]
  event <id>         one event
  watch              poll and print only changes      [--interval SECONDS (>= the API's 30 s cache)] [--max-polls N]
  statusline         a short segment for a prompt or tmux (cached on disk for 60 s)
  mcp                an MCP server on stdio (tools reset_today, reset_forecast, reset_history, reset_event)
Options: --lang en|de|ko|ja|zh (default from LANG, else en)  --json  --base-url URL (or ${API_URL_ENV})  --timeout MS
API without --base-url or ${API_URL_ENV}: ${PRODUCTION_API_URL ?? 'none (this build of the package names no production host)'}
Exit codes: 0 answered, 2 unknown or stale, 1 error.
  today --plan: 0 yes, not for your plan, or no reset today; 2 not stated (the post does not say), unknown or stale.`;

class UsageError extends Error {}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function positiveInt(name: string, v: string | undefined, min: number, max = Number.MAX_SAFE_INTEGER) {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`--${name} wants a whole number from ${min} to ${max}, got ${JSON.stringify(v)}`);
  return n;
}

/** `v` when it is one of `allowed` (or not given), else a usage error. */
function oneOf<T extends string>(name: string, allowed: readonly T[], v: string | undefined): T | undefined {
  if (v !== undefined && !(allowed as readonly string[]).includes(v))
    throw new UsageError(`--${name} wants one of ${allowed.join(', ')}, got ${JSON.stringify(v)}`);
  return v as T | undefined;
}

/** How the CLI writes: every line passes here, so text from the API is cleaned in this one place before it is printed. */
interface Output {
  /** One line: cleaned by showLine, coloured only in the CLI's own words and only when colour is on. */
  line(line: Line): void;
  /** One JSON document: JSON.stringify, with C1 and bidi characters escaped too. */
  json(value: unknown): void;
  /** A line on stderr, cleaned. */
  note(text: string): void;
}

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let json = false;
  const colour = process.stdout.isTTY === true && !env.NO_COLOR && env.TERM !== 'dumb';
  const o: Output = {
    line: (l) => process.stdout.write(`${showLine(l, colour)}\n`),
    json: (v) => process.stdout.write(`${escapeJson(JSON.stringify(v))}\n`),
    note: (t) => process.stderr.write(`${showLine(t, false)}\n`),
  };
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        lang: { type: 'string' },
        json: { type: 'boolean', default: false },
        'base-url': { type: 'string' },
        type: { type: 'string' },
        limit: { type: 'string' },
        all: { type: 'boolean', default: false },
        page: { type: 'string' },
        interval: { type: 'string' },
        'max-polls': { type: 'string' },
        timeout: { type: 'string' },
        plan: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
    json = values.json;
    if (values.help) {
      o.line(USAGE);
      return EXIT_ANSWERED;
    }
    const [command = 'today', id] = positionals;
    const lang: Lang =
      oneOf('lang', LANGS, values.lang) ?? langFromLocale(env.LC_ALL || env.LC_MESSAGES || env.LANG) ?? 'en';
    const baseUrl = values['base-url'] ?? env[API_URL_ENV] ?? PRODUCTION_API_URL;
    if (baseUrl === null) throw new UsageError(NO_API_URL_MESSAGE);
    if (!/^https?:\/\/[^/]/.test(baseUrl))
      throw new UsageError(`the base URL must be an absolute http(s) URL, got ${JSON.stringify(baseUrl)}`);
    const timeoutMs = positiveInt('timeout', values.timeout, 1);
    const client = () => createResetStatusClient({ baseUrl, lang, timeoutMs });
    // Data sources ask to be credited wherever their data is shown: in the JSON, and as lines after the answer.
    const print = (value: unknown, line: Line, credits: readonly Credit[] = []) => {
      if (json) return o.json(credits.length > 0 ? { ...(value as object), credits } : value);
      o.line(line);
      for (const c of credits) o.line(creditLine(c));
    };

    switch (command) {
      case 'today': {
        const plan = oneOf('plan', PLANS, values.plan);
        const l = await client().latest();
        print(
          { ...todayAnswer(l, plan), document: l.data },
          plan ? renderPlanToday(l, plan, lang) : renderToday(l, lang),
          creditsOf([l.data]),
        );
        return exitOf(plan ? planAnswer(l, plan) : answerKind(l));
      }
      case 'forecast': {
        // Past its stale_after the forecast has no probability, whatever the document says, and exits 2 as stale.
        const f = await client().forecast();
        print(
          { ...trustedProbabilities(f), stale: f.stale, stale_after: f.staleAfter, document: f.data },
          renderForecast(f, lang),
          creditsOf([f.data]),
        );
        return f.stale ? EXIT_UNKNOWN : EXIT_ANSWERED;
      }
      case 'history': {
        const type = oneOf('type', EVENT_TYPES, values.type);
        const limit = positiveInt('limit', values.limit, 1, MAX_HISTORY_EVENTS);
        const page = positiveInt('page', values.page, 1, 9_999_999);
        if ([limit !== undefined, values.all, page !== undefined].filter(Boolean).length > 1)
          throw new UsageError('history takes one of --limit, --all and --page');
        if (page !== undefined) {
          const p = await client().historyPage(page, { type });
          const { first_position, next, events } = p;
          print({ page: p.page, first_position, next, events }, renderEvents(events, lang), creditsOf([p]));
          return EXIT_ANSWERED;
        }
        const h = await client().history({ type, limit: values.all ? MAX_HISTORY_EVENTS : limit });
        print({ count: h.count, truncated: h.truncated, events: h.events }, renderEvents(h.events, lang), h.credits);
        // Said on stderr, so stdout stays the list: more exists than was asked for by default or than --all may read.
        if (h.truncated && limit === undefined)
          o.note(
            `reset-status: the newest ${h.events.length} of ${h.count} events; ${values.all ? `--all stops at ${MAX_HISTORY_EVENTS}, read older ones with --page N` : '--limit N or --all for more'}`,
          );
        return EXIT_ANSWERED;
      }
      case 'event': {
        if (!id) throw new UsageError('event wants an id: reset-status event <id>');
        const { event: e, credits } = await client().eventDocument(id);
        print({ event: e }, renderEvent(e), credits);
        return EXIT_ANSWERED;
      }
      case 'watch': {
        const interval = positiveInt('interval', values.interval, 0, WATCH_MAX_WAIT_MS / 1000);
        const maxPolls = positiveInt('max-polls', values['max-polls'], 1) ?? Infinity;
        const intervalMs = interval === undefined ? WATCH_DEFAULT_INTERVAL_MS : interval * 1000;
        return await watch(client(), { lang, json, o, intervalMs, maxPolls });
      }
      case 'statusline':
        return await statusline(baseUrl, env, o, timeoutMs);
      case 'mcp':
        await runMcpServer({ baseUrl, lang, timeoutMs });
        return -1; // keep running: the transport ends the process when stdin closes
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    }
  } catch (e) {
    const usage = e instanceof UsageError;
    const code = usage ? 'usage' : e instanceof ResetStatusError ? e.code : 'error';
    const message =
      e instanceof ResetStatusError && e.code === 'not_found'
        ? `not found: ${new URL(e.url).pathname} at ${new URL(e.url).origin}: ${e.message}`
        : e instanceof Error
          ? e.message
          : String(e);
    if (json) o.json({ error: { code, message, status: e instanceof ResetStatusError ? e.status : null } });
    o.note(`reset-status: ${message}${usage ? `\n\n${USAGE}` : ''}`);
    return EXIT_ERROR;
  }
}
/**
 * Polls no faster than the response may be cached (its max-age, 30 s at the API) nor than `--interval`, and prints only
 * changes. Whatever the API says, polls are at least WATCH_MIN_WAIT_MS apart and a max-age counts up to WATCH_MAX_WAIT_MS.
 */
async function watch(
  client: ResetStatusClient,
  w: { lang: Lang; json: boolean; o: Output; intervalMs: number; maxPolls: number },
): Promise<number> {
  let previous = '';
  let exit = EXIT_ANSWERED;
  for (let poll = 1; poll <= w.maxPolls; poll++) {
    try {
      const l = await client.latest();
      // What watch compares and prints: today's answer without its stale_after and the banked warning.
      const { stale_after: _at, banked_reset_warning: _warning, ...value } = todayAnswer(l);
      const line = renderToday(l, w.lang);
      const key = w.json ? JSON.stringify(value) : showLine(line, false);
      if (key !== previous && w.json) w.o.json(value);
      else if (key !== previous) w.o.line(line);
      previous = key;
      exit = exitOf(answerKind(l));
    } catch (e) {
      w.o.note(`reset-status: ${e instanceof Error ? e.message : String(e)}`);
      exit = EXIT_ERROR;
    }
    const maxAge = client.cache.get(`${client.baseUrl}/api/latest?lang=${w.lang}`)?.maxAgeMs ?? API_MAX_AGE_MS;
    if (poll < w.maxPolls) await sleep(Math.max(w.intervalMs, WATCH_MIN_WAIT_MS, Math.min(maxAge, WATCH_MAX_WAIT_MS)));
  }
  return exit;
}

/** Answers from the disk cache for 60 s, then asks again (conditionally); `?` when unknown, stale or unreachable. */
async function statusline(baseUrl: string, env: NodeJS.ProcessEnv, o: Output, timeoutMs = 3_000): Promise<number> {
  const { cache, refused } = openDiskCache(cacheDir(env));
  if (refused) o.note(`reset-status: ${refused}`);
  const client = createResetStatusClient({ baseUrl, retries: 0, timeoutMs, cache });
  const hit = client.cache.get(`${client.baseUrl}/api/latest`);
  const age = hit ? Date.now() - hit.storedAt : -1;
  const cached = hit && age >= 0 && age < STATUSLINE_CACHE_MS ? latestFromCache(hit.body) : null;
  const latest = cached ? freshAt(cached, Date.now()) : await client.latest().catch(() => null);
  o.line(renderStatusline(latest));
  return latest === null ? EXIT_ERROR : exitOf(answerKind(latest));
}

const code = await main(process.argv.slice(2), process.env);
if (code >= 0) process.exitCode = code;
