// Pure: what to send to whom this run, and the log of what was sent. At-least-once with dedupe: a delivery is
// recorded only after it succeeded; a failed one is retried on later runs until NOTIFY_RETRY_MS after it first
// failed or until the news stops being news (its window below), whichever comes first.
import { DAY_MS, eventMs } from '../model/events.ts';
import type { Announcement, Event, Lang, NotifyLog } from '../model/schemas.ts';
import type { TodayStatus } from '../model/status.ts';
import { renderEvent } from '../render/documents.ts';
import { translator } from '../render/i18n.ts';
import { announcementSummary } from '../render/upcoming.ts';

/** A reset is news for this long after it happened: never older history, never a backfilled record. */
export const RESET_NEWS_WINDOW_MS = DAY_MS;
export const NOTIFY_RETRY_MS = 6 * 60 * 60 * 1000;
/** Deliveries are remembered this long; past it, every window above has closed. */
export const SENT_LOG_KEEP_MS = 8 * DAY_MS;
export const SENT_LOG_MAX = 2000;

export type MessageKind = 'reset' | 'announcement' | 'confirmed_today';

/** The documented JSON body of a plain webhook; the other channels adapt the same fields. */
export interface NotifyMessage {
  kind: MessageKind;
  /** Also sent as the `Idempotency-Key` header: the same on every retry. */
  idempotency_key: string;
  id: string;
  type: string | null;
  lang: Lang;
  title: string;
  summary: string;
  occurred_at: string | null;
  announced_at: string | null;
  scheduled_for: string | null;
  date: string | null;
  links: { api: string; source: string | null };
}

export interface Delivery {
  channel: string;
  message: NotifyMessage;
  /** Keys that mean "already sent": the message's own and, for a merged record, those of the records it absorbed. */
  keys: string[];
}

export interface PlanOptions {
  channels: readonly string[];
  lang: Lang;
  publicUrl: string;
}

function resetMessages(events: readonly Event[], asOf: Date, o: PlanOptions): Omit<Delivery, 'channel'>[] {
  const t = translator(o.lang);
  const now = asOf.getTime();
  return events
    .filter((e) => e.type === 'global_reset' && e.origin !== 'ledger' && e.time_precision !== 'day')
    .filter((e) => eventMs(e) <= now && now - eventMs(e) <= RESET_NEWS_WINDOW_MS)
    .map((e) => {
      const r = renderEvent(e, o.lang, t);
      return {
        keys: [e.id, ...e.same_as].map((id) => `reset:${id}`),
        message: {
          kind: 'reset',
          idempotency_key: `reset-status-api:reset:${e.id}`,
          id: e.id,
          type: e.type,
          lang: o.lang,
          title: r.title,
          summary: r.summary,
          occurred_at: r.occurred_at,
          announced_at: e.announced_at,
          scheduled_for: null,
          date: r.occurred_at.slice(0, 10),
          links: { api: `${o.publicUrl}/api/events/${e.id}?lang=${o.lang}`, source: e.sources[0]?.url ?? null },
        },
      };
    });
}

function announcementMessage(a: Announcement, o: PlanOptions): Omit<Delivery, 'channel'> {
  const t = translator(o.lang);
  return {
    keys: [`announcement:${a.id}`],
    message: {
      kind: 'announcement',
      idempotency_key: `reset-status-api:announcement:${a.id}`,
      id: a.id,
      type: a.type,
      lang: o.lang,
      title: t('follow:feed.announcement_title', { type: a.type === null ? t('follow:upcoming.unknown_type') : t(`common:type.${a.type}`) }),
      summary: announcementSummary(a, t),
      occurred_at: null,
      announced_at: a.announced_at,
      scheduled_for: a.scheduled_for,
      date: (a.scheduled_for ?? a.announced_at).slice(0, 10),
      links: { api: `${o.publicUrl}/api/latest?lang=${o.lang}`, source: a.source.url },
    },
  };
}

function confirmedMessage(today: TodayStatus, o: PlanOptions): Omit<Delivery, 'channel'> {
  const t = translator(o.lang);
  return {
    keys: [`confirmed:${today.date}`],
    message: {
      kind: 'confirmed_today',
      idempotency_key: `reset-status-api:confirmed:${today.date}`,
      id: today.event_ids[0] ?? today.date,
      type: 'global_reset',
      lang: o.lang,
      title: t('follow:notify.confirmed_title'),
      summary: t('follow:notify.confirmed_summary', { date: today.date }),
      occurred_at: null,
      announced_at: null,
      scheduled_for: null,
      date: today.date,
      links: { api: `${o.publicUrl}/api/status?lang=${o.lang}`, source: null },
    },
  };
}

/**
 * The deliveries due now: per channel, every message whose news window is open, not yet sent to that channel, and
 * not given up on (failing for longer than NOTIFY_RETRY_MS). Messages: a global reset recorded within the last
 * 24 hours (ledger imports and day-precision records never); the announced reset still upcoming; today turning
 * `confirmed_today`.
 */
export function planNotifications(
  log: NotifyLog,
  events: readonly Event[],
  upcoming: Announcement | null,
  today: TodayStatus,
  asOf: Date,
  o: PlanOptions,
): Delivery[] {
  const messages = resetMessages(events, asOf, o);
  if (upcoming) messages.push(announcementMessage(upcoming, o));
  if (today.state === 'confirmed_today') messages.push(confirmedMessage(today, o));
  const sent = new Set(log.sent.map((s) => `${s.channel}\u0000${s.key}`));
  const gaveUp = new Set(log.failed.filter((f) => asOf.getTime() - Date.parse(f.first_failed_at) > NOTIFY_RETRY_MS).map((f) => `${f.channel}\u0000${f.key}`));
  const out: Delivery[] = [];
  for (const channel of o.channels) {
    for (const m of messages) {
      const seen = (k: string) => sent.has(`${channel}\u0000${k}`);
      if (m.keys.some(seen) || gaveUp.has(`${channel}\u0000${m.keys[0]}`)) continue;
      out.push({ channel, ...m });
    }
  }
  return out;
}

export interface DeliveryOutcome {
  channel: string;
  key: string;
  /** `skipped`: the run's notification budget ran out before it was tried; it is due again next run. */
  result: 'sent' | 'failed' | 'skipped';
  detail: string;
}

/** The log after this run's outcomes: successes recorded, failures counted from their first, old entries dropped. */
export function recordOutcomes(log: NotifyLog, outcomes: readonly DeliveryOutcome[], asOf: Date): NotifyLog {
  const at = asOf.toISOString();
  const now = asOf.getTime();
  const k = (c: string, key: string) => `${c}\u0000${key}`;
  const done = new Set(outcomes.filter((o) => o.result === 'sent').map((o) => k(o.channel, o.key)));
  const failedNow = outcomes.filter((o) => o.result === 'failed');
  const failed = new Map(log.failed.filter((f) => !done.has(k(f.channel, f.key))).map((f) => [k(f.channel, f.key), f]));
  for (const o of failedNow) {
    const prev = failed.get(k(o.channel, o.key));
    failed.set(k(o.channel, o.key), { channel: o.channel, key: o.key, first_failed_at: prev?.first_failed_at ?? at, attempts: (prev?.attempts ?? 0) + 1 });
  }
  const sent = [...log.sent, ...outcomes.filter((o) => o.result === 'sent').map((o) => ({ channel: o.channel, key: o.key, at }))]
    .filter((s) => now - Date.parse(s.at) <= SENT_LOG_KEEP_MS)
    .slice(-SENT_LOG_MAX);
  return { sent, failed: [...failed.values()].filter((f) => now - Date.parse(f.first_failed_at) <= SENT_LOG_KEEP_MS) };
}
