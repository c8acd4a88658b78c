// Sends planned deliveries with undici (builder/net/http.ts): each request bounded by a timeout, failed ones retried
// under the same policy as the sources' requests (5xx, 429, timeouts and network errors; Retry-After honoured), the
// whole run by a budget, channels in parallel and each channel's messages in order. A receiver that is slow, down or
// hanging costs at most the budget and never throws: every delivery ends as an outcome (sent, failed, or skipped when
// the budget ran out).
import { request, type Agent } from 'undici';
import {
  createAgent,
  errorCode,
  isTimeout,
  retryableStatus,
  retryAfterOf,
  withRetries,
  type Attempt,
} from '../net/http.ts';
import type { Channel } from './channels.ts';
import { buildRequest } from './message.ts';
import { LOCAL_USER_AGENT } from '../net/user-agent.ts';
import type { Delivery, DeliveryOutcome } from './plan.ts';

export const NOTIFY_TIMEOUT_MS = 5_000;
export const NOTIFY_BUDGET_MS = 20_000;
const NOTIFY_RETRIES = 2;
const NOTIFY_BACKOFF_BASE_MS = 500;
/** Less budget than this left is not worth a request: the delivery is skipped and due again next run. */
const MIN_REQUEST_MS = 50;
/** A receiver's answer is read this far at most (to reuse the connection) and otherwise ignored. */
const ANSWER_MAX_BYTES = 64 * 1024;

export interface NotifierOptions {
  timeoutMs?: number;
  budgetMs?: number;
  /** Retries after the first attempt of one delivery, within the budget. */
  retries?: number;
  backoffBaseMs?: number;
  telegramApiUrl?: string;
  /** The User-Agent of every delivery, the sources' own (net/user-agent.ts). */
  userAgent?: string;
  log?: (line: string) => void;
}

export interface Notifier {
  readonly channels: readonly Channel[];
  send(deliveries: readonly Delivery[]): Promise<DeliveryOutcome[]>;
}

/** `detail`: `HTTP 503`, `timeout`, or the network error's code; never the message, which can quote the secret URL. */
type PostFailure = { detail: string; retryable: boolean; retryAfterMs: number | null };

async function post(
  agent: Agent,
  req: ReturnType<typeof buildRequest>,
  userAgent: string,
  timeoutMs: number,
): Promise<Attempt<string, PostFailure>> {
  try {
    // The timeout covers connecting, the answer's head and its body alike.
    const res = await request(req.url, {
      method: 'POST',
      headers: { ...req.headers, 'user-agent': userAgent },
      body: req.body,
      dispatcher: agent,
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body.dump({ limit: ANSWER_MAX_BYTES }).catch(() => undefined);
    const detail = `HTTP ${res.statusCode}`;
    if (res.statusCode >= 200 && res.statusCode < 300) return { ok: true, value: detail };
    return {
      ok: false,
      failure: {
        detail,
        retryable: retryableStatus(res.statusCode),
        retryAfterMs: retryAfterOf(res.statusCode, res.headers['retry-after'], Date.now()),
      },
    };
  } catch (err) {
    const e = err as { name?: string };
    const detail = isTimeout(err) || e.name === 'AbortError' ? 'timeout' : (errorCode(err) ?? e.name ?? 'error');
    return { ok: false, failure: { detail, retryable: true, retryAfterMs: null } };
  }
}

export function createNotifier(channels: readonly Channel[], opts: NotifierOptions = {}): Notifier {
  const timeoutMs = opts.timeoutMs ?? NOTIFY_TIMEOUT_MS;
  const budgetMs = opts.budgetMs ?? NOTIFY_BUDGET_MS;
  const retries = opts.retries ?? NOTIFY_RETRIES;
  const backoffBaseMs = opts.backoffBaseMs ?? NOTIFY_BACKOFF_BASE_MS;
  const log = opts.log ?? (() => {});
  const userAgent = opts.userAgent ?? LOCAL_USER_AGENT;
  return {
    channels,
    async send(deliveries) {
      const deadlineMs = Date.now() + budgetMs;
      const agent = createAgent({ timeoutMs, maxBodyBytes: ANSWER_MAX_BYTES });
      try {
        const perChannel = channels.map(async (c) => {
          const out: DeliveryOutcome[] = [];
          for (const d of deliveries.filter((x) => x.channel === c.id)) {
            const key = d.keys[0]!;
            if (deadlineMs - Date.now() < MIN_REQUEST_MS) {
              out.push({ channel: c.id, key, result: 'skipped', detail: 'budget' });
              continue;
            }
            const req = buildRequest(c, d.message, opts.telegramApiUrl);
            const r = await withRetries(
              () => post(agent, req, userAgent, Math.max(1, Math.floor(Math.min(timeoutMs, deadlineMs - Date.now())))),
              { retries, backoffBaseMs, deadlineMs },
            );
            const detail = r.ok ? r.value : r.failure.detail;
            const result = r.ok ? 'sent' : 'failed';
            log(`notify: ${d.message.kind} ${d.message.id} → ${c.label}: ${result} (${detail})`);
            out.push({ channel: c.id, key, ...(d.covers ? { covers: d.covers } : {}), result, detail });
          }
          return out;
        });
        return (await Promise.all(perChannel)).flat();
      } finally {
        // A hanging receiver's socket must not keep the process alive after the run.
        await agent.destroy();
      }
    },
  };
}
