// Sends planned deliveries with Node's HTTP client (builder/net/exchange.ts): each request bounded by a timeout, the
// whole run by a budget, channels in parallel and each channel's messages in order. A receiver that is slow, down or
// hanging costs at most the budget and never throws: every delivery ends as an outcome (sent, failed, or skipped when
// the budget ran out).
import { closeAgents, createAgents, drain, exchange, type ExchangeAgents } from '../net/exchange.ts';
import type { Channel } from './channels.ts';
import { buildRequest, DEFAULT_TELEGRAM_API_URL } from './message.ts';
import type { Delivery, DeliveryOutcome } from './plan.ts';

export const NOTIFY_TIMEOUT_MS = 5_000;
export const NOTIFY_BUDGET_MS = 20_000;
/** Less budget than this left is not worth a request: the delivery is skipped and due again next run. */
const MIN_REQUEST_MS = 50;

export interface NotifierOptions {
  timeoutMs?: number;
  budgetMs?: number;
  telegramApiUrl?: string;
  log?: (line: string) => void;
}

export interface Notifier {
  readonly channels: readonly Channel[];
  send(deliveries: readonly Delivery[]): Promise<DeliveryOutcome[]>;
}

async function post(agents: ExchangeAgents, req: ReturnType<typeof buildRequest>, timeoutMs: number): Promise<{ ok: boolean; detail: string }> {
  try {
    // The timeout covers connecting, the answer's head and its body alike.
    const res = await exchange({ url: req.url, method: 'POST', headers: req.headers, body: req.body, agents, signal: AbortSignal.timeout(timeoutMs) });
    await drain(res.body, 64 * 1024);
    return res.statusCode >= 200 && res.statusCode < 300 ? { ok: true, detail: `HTTP ${res.statusCode}` } : { ok: false, detail: `HTTP ${res.statusCode}` };
  } catch (err) {
    // Only the error's kind: an error's message can quote the address, which holds the secret.
    const e = err as { name?: string; code?: string };
    return { ok: false, detail: e.name === 'TimeoutError' || e.name === 'AbortError' ? 'timeout' : (e.code ?? e.name ?? 'error') };
  }
}

export function createNotifier(channels: readonly Channel[], opts: NotifierOptions = {}): Notifier {
  const timeoutMs = opts.timeoutMs ?? NOTIFY_TIMEOUT_MS;
  const budgetMs = opts.budgetMs ?? NOTIFY_BUDGET_MS;
  const log = opts.log ?? (() => {});
  return {
    channels,
    async send(deliveries) {
      const deadline = performance.now() + budgetMs;
      const agents = createAgents();
      const byChannel = new Map(channels.map((c) => [c.id, c]));
      try {
        const perChannel = channels.map(async (c) => {
          const out: DeliveryOutcome[] = [];
          for (const d of deliveries.filter((x) => x.channel === c.id)) {
            const key = d.keys[0]!;
            const left = deadline - performance.now();
            if (left < MIN_REQUEST_MS) {
              out.push({ channel: c.id, key, result: 'skipped', detail: 'budget' });
              continue;
            }
            const r = await post(agents, buildRequest(byChannel.get(c.id)!, d.message, opts.telegramApiUrl ?? DEFAULT_TELEGRAM_API_URL), Math.floor(Math.min(timeoutMs, left)));
            log(`notify: ${d.message.kind} ${d.message.id} → ${c.label}: ${r.ok ? 'sent' : 'failed'} (${r.detail})`);
            out.push({ channel: c.id, key, ...(d.covers ? { covers: d.covers } : {}), result: r.ok ? 'sent' : 'failed', detail: r.detail });
          }
          return out;
        });
        return (await Promise.all(perChannel)).flat();
      } finally {
        // A hanging receiver's socket must not keep the process alive after the run.
        closeAgents(agents);
      }
    },
  };
}
