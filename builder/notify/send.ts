// Sends planned deliveries with undici (builder/net/http.ts), each message as the HTTP request its kind of channel
// expects: each request bounded by a timeout, failed ones retried under the same policy as the sources' requests (5xx,
// 429, timeouts and network errors; Retry-After honoured), the whole run by a budget, channels in parallel and each
// channel's messages in order. A receiver that is slow, down or hanging costs at most the budget and never throws:
// every delivery ends as an outcome (sent, failed, or skipped when the budget ran out).
import { request, type Agent } from 'undici';
import * as http from '../net/http.ts';
import type { Channel } from './channels.ts';
import { LOCAL_USER_AGENT } from '../net/user-agent.ts';
import type { Delivery, DeliveryOutcome, NotifyMessage } from './plan.ts';

/** Less budget than this left is not worth a request: the delivery is skipped and due again next run. */
const MIN_REQUEST_MS = 50;
/** A receiver's answer is read this far at most (to reuse the connection) and otherwise ignored. */
const ANSWER_MAX_BYTES = 64 * 1024;

const DEFAULTS = {
  timeoutMs: 5_000,
  budgetMs: 20_000,
  /** Retries after the first attempt of one delivery, within the budget. */
  retries: 2,
  backoffBaseMs: 500,
  telegramApiUrl: 'https://api.telegram.org',
  /** The User-Agent of every delivery, the sources' own (net/user-agent.ts). */
  userAgent: LOCAL_USER_AGENT,
  log: (_line: string): void => {},
};

export interface Notifier {
  readonly channels: readonly Channel[];
  send(deliveries: readonly Delivery[]): Promise<DeliveryOutcome[]>;
}

/** Slack's three control characters in text, as Slack asks: `&amp;`, `&lt;`, `&gt;`. */
const slackEscape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * `<url|label>`. In the URL `|`, `<` and `>` would end the link or its URL early (a source link could then show a
 * label of its own choosing, or open a mention), so they are percent-encoded first, which names the same resource;
 * `&` is then escaped as in any text. The label is text: escaped.
 */
function slackLink(url: string, label: string): string {
  const safe = url.replace(/[|<>]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).replace(/&/g, '&amp;');
  return `<${safe}|${slackEscape(label)}>`;
}

/** The URL and JSON body of `m` for channel `c`. Slack renders mrkdwn, so only there is escaping needed: Discord and
 * Telegram get plain text (no mentions, no parse mode). */
function requestFor(c: Channel, m: NotifyMessage, telegramApiUrl: string): { url: string; body: unknown } {
  const text = [m.title, m.summary, m.links.api, m.links.source].filter((x) => !!x).join('\n');
  switch (c.kind) {
    case 'webhook':
      return { url: c.url, body: m };
    case 'discord':
      return { url: c.url, body: { content: text.slice(0, 2000), allowed_mentions: { parse: [] } } };
    case 'slack': {
      // A source link is labelled with its host (`x.com`).
      const source = m.links.source && slackLink(m.links.source, URL.parse(m.links.source)?.host || m.links.source);
      const lines = [`*${slackLink(m.links.api, m.title)}*`, slackEscape(m.summary), source];
      return { url: c.url, body: { text: lines.filter(Boolean).join('\n') } };
    }
    case 'ntfy': {
      // ntfy's JSON publishing goes to the server's root with the topic in the body.
      const u = new URL(c.url);
      const parts = u.pathname.split('/').filter((p) => p !== '');
      const topic = parts.pop() ?? '';
      u.pathname = parts.length ? `/${parts.join('/')}/` : '/';
      u.search = '';
      const message = `${m.summary}\n${m.links.source ?? ''}`.trim();
      const body = { topic, title: m.title, message, click: m.links.api, tags: ['arrows_counterclockwise'] };
      return { url: u.href, body };
    }
    case 'telegram':
      return {
        url: `${telegramApiUrl.replace(/\/+$/, '')}/bot${c.telegram!.token}/sendMessage`,
        body: { chat_id: c.telegram!.chatId, text: text.slice(0, 4096), disable_web_page_preview: true },
      };
  }
}

/** `detail`: `HTTP 503`, `timeout`, or the network error's code; never the message, which can quote the secret URL. */
type PostFailure = { detail: string; retryable: boolean; retryAfterMs: number | null };

type PostInit = { headers: Record<string, string>; body: string; dispatcher: Agent };

async function post(url: string, init: PostInit, timeoutMs: number): Promise<http.Attempt<string, PostFailure>> {
  try {
    const res = await request(url, { method: 'POST', ...init, signal: AbortSignal.timeout(timeoutMs) });
    await res.body.dump({ limit: ANSWER_MAX_BYTES }).catch(() => undefined);
    const detail = `HTTP ${res.statusCode}`;
    if (res.statusCode >= 200 && res.statusCode < 300) return { ok: true, value: detail };
    const retryAfterMs = http.retryAfterOf(res.statusCode, res.headers['retry-after'], Date.now());
    return { ok: false, failure: { detail, retryable: http.retryableStatus(res.statusCode), retryAfterMs } };
  } catch (err) {
    const e = err as { name?: string };
    const detail =
      http.isTimeout(err) || e.name === 'AbortError' ? 'timeout' : (http.errorCode(err) ?? e.name ?? 'error');
    return { ok: false, failure: { detail, retryable: true, retryAfterMs: null } };
  }
}

export function createNotifier(channels: readonly Channel[], opts: Partial<typeof DEFAULTS> = {}): Notifier {
  const o = { ...DEFAULTS, ...opts };
  const common = { 'content-type': 'application/json', 'user-agent': o.userAgent };
  return {
    channels,
    async send(deliveries) {
      const deadlineMs = Date.now() + o.budgetMs;
      const agent = http.createAgent({ timeoutMs: o.timeoutMs, maxBodyBytes: ANSWER_MAX_BYTES });
      const sendAll = async (c: Channel): Promise<DeliveryOutcome[]> => {
        const out: DeliveryOutcome[] = [];
        for (const d of deliveries.filter((x) => x.channel === c.id)) {
          const key = d.keys[0]!;
          if (deadlineMs - Date.now() < MIN_REQUEST_MS) {
            out.push({ channel: c.id, key, result: 'skipped', detail: 'budget' });
            continue;
          }
          const { url, body } = requestFor(c, d.message, o.telegramApiUrl);
          const headers = { ...common, 'idempotency-key': d.message.idempotency_key };
          const init = { headers, body: JSON.stringify(body), dispatcher: agent };
          // Each attempt's timeout covers connecting, the answer's head and its body alike.
          const timeoutMs = () => Math.max(1, Math.floor(Math.min(o.timeoutMs, deadlineMs - Date.now())));
          const policy = { retries: o.retries, backoffBaseMs: o.backoffBaseMs, deadlineMs };
          const r = await http.withRetries(() => post(url, init, timeoutMs()), policy);
          const detail = r.ok ? r.value : r.failure.detail;
          const result = r.ok ? 'sent' : 'failed';
          o.log(`notify: ${d.message.kind} ${d.message.id} → ${c.label}: ${result} (${detail})`);
          out.push({ channel: c.id, key, ...(d.covers ? { covers: d.covers } : {}), result, detail });
        }
        return out;
      };
      try {
        return (await Promise.all(channels.map(sendAll))).flat();
      } finally {
        // A hanging receiver's socket must not keep the process alive after the run.
        await agent.destroy();
      }
    },
  };
}
