// Pure: what to send to whom this run, and the log of what was sent. At-least-once with dedupe: a delivery is
// recorded only after it succeeded; a failed one is retried on later runs until NOTIFY_RETRY_MS after it first
// failed or until the news stops being news (its window below), whichever comes first. Bounded: at most
// NOTIFY_MAX_PER_RUN messages per run and channel, then one digest covering the rest.
import { hash } from 'node:crypto';
import type { Lang } from '../contract.ts';
import { DAY_MS, eventMs } from '../model/events.ts';
import type { Announcement, Event, NotifyLog } from '../model/schemas.ts';
import type { TodayStatus } from '../model/status.ts';
import { renderEvent } from '../render/documents.ts';
import { translator } from '../render/i18n.ts';
import { announcementSummary } from '../render/reach.ts';
import { announcementDataOf, creditLine, creditsFor, type Credit } from '../render/values.ts';

/** A reset is news for this long after it happened: never older history, never a backfilled record. */
const RESET_NEWS_WINDOW_MS = DAY_MS;
export const NOTIFY_RETRY_MS = 6 * 60 * 60 * 1000;
/**
 * Deliveries are remembered this long, and longer while their message is still due: never dropped by a count, so a key
 * whose window is open is never sent again. Bounded by time: 8 days of runs, each adding per channel at most
 * NOTIFY_MAX_PER_RUN messages and one digest with its few keys (a source adding many resets is quarantined).
 */
export const SENT_LOG_KEEP_MS = 8 * DAY_MS;
/** Messages one channel gets per run at most; what is due past it goes out as one digest ("N more resets recorded"). */
export const NOTIFY_MAX_PER_RUN = 5;

/** The documented JSON body of a plain webhook; the other channels adapt the same fields. */
export interface NotifyMessage {
  kind: 'reset' | 'announcement' | 'confirmed_today' | 'digest';
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
  /** A digest's: the keys of the messages it stands for, recorded as sent with it (so each is sent exactly once). */
  covers?: string[];
}

export interface PlanOptions {
  channels: readonly string[];
  lang: Lang;
  publicUrl: string;
}

type Due = Omit<Delivery, 'channel'>;
type MessageFields = Pick<NotifyMessage, 'kind' | 'id' | 'type' | 'title' | 'summary' | 'date'> &
  Partial<Pick<NotifyMessage, 'occurred_at' | 'announced_at' | 'scheduled_for'>> & {
    api: string;
    source?: string | null | undefined;
  };

/** A message under `key` (its Idempotency-Key too); `api`: the path under /api/ it links to, before `lang`. */
function due(key: string, f: MessageFields, o: PlanOptions, extra: Partial<Due> = {}): Due {
  const api = `${o.publicUrl}/api/${f.api}${f.api.includes('?') ? '&' : '?'}lang=${o.lang}`;
  const message: NotifyMessage = {
    kind: f.kind,
    idempotency_key: `reset-status-api:${key}`,
    id: f.id,
    type: f.type,
    lang: o.lang,
    title: f.title,
    summary: f.summary,
    occurred_at: f.occurred_at ?? null,
    announced_at: f.announced_at ?? null,
    scheduled_for: f.scheduled_for ?? null,
    date: f.date,
    links: { api, source: f.source ?? null },
  };
  return { keys: [key], message, ...extra };
}

/** `text`, then the credit line of each tracker whose data it shows. */
const credited = (text: string, credits: Credit[]): string => [text, ...credits.map(creditLine)].join(' ');

/**
 * Every message due now, before dedupe: a global reset recorded within the last 24 hours (oldest first; ledger
 * imports and day-precision records never), the announced reset still upcoming, today turning `confirmed_today`.
 */
function dueMessages(
  events: readonly Event[],
  upcoming: Announcement | null,
  today: TodayStatus,
  asOf: Date,
  o: PlanOptions,
): Due[] {
  const t = translator(o.lang);
  const now = asOf.getTime();
  const messages = events
    .filter((e) => e.type === 'global_reset' && e.origin !== 'ledger' && e.time_precision !== 'day')
    .filter((e) => eventMs(e) <= now && now - eventMs(e) <= RESET_NEWS_WINDOW_MS)
    // Oldest first, so which ones a digest stands for is the same on every run.
    .sort((a, b) => eventMs(a) - eventMs(b) || a.id.localeCompare(b.id))
    .map((e) => {
      const r = renderEvent(e, o.lang, t);
      const fields: MessageFields = {
        kind: 'reset',
        id: e.id,
        type: e.type,
        title: r.title,
        // Whom it reached and when it lands, as the event document says it (an unreviewed record: not stated), and the
        // credit of each tracker whose data it shows, worded as the tracker asks.
        summary: credited(r.reach === null ? r.summary : `${r.summary} — ${r.reach.summary}`, creditsFor([e])),
        occurred_at: r.occurred_at,
        announced_at: e.announced_at,
        date: r.occurred_at.slice(0, 10),
        api: `events/${e.id}`,
        source: e.sources[0]?.url,
      };
      return due(`reset:${e.id}`, fields, o, { keys: [e.id, ...e.same_as].map((id) => `reset:${id}`) });
    });
  if (upcoming) {
    const type = upcoming.type === null ? t('follow:upcoming.unknown_type') : t(`common:type.${upcoming.type}`);
    const fields: MessageFields = {
      kind: 'announcement',
      id: upcoming.id,
      type: upcoming.type,
      title: t('follow:feed.announcement_title', { type }),
      summary: credited(announcementSummary(upcoming, t), creditsFor([], announcementDataOf(upcoming))),
      announced_at: upcoming.announced_at,
      scheduled_for: upcoming.scheduled_for,
      date: (upcoming.scheduled_for ?? upcoming.announced_at).slice(0, 10),
      api: 'latest',
      source: upcoming.source?.url,
    };
    messages.push(due(`announcement:${upcoming.id}`, fields, o));
  }
  if (today.state === 'confirmed_today') {
    const fields: MessageFields = {
      kind: 'confirmed_today',
      id: today.event_ids[0] ?? today.date,
      type: 'global_reset',
      title: t('follow:notify.confirmed_title'),
      summary: t('follow:notify.confirmed_summary', { date: today.date }),
      date: today.date,
      api: 'status',
    };
    // A reset verified after it was announced keeps its id and is not news again: the confirmed day stands for the
    // resets it names (their reset keys are its keys too), so it is not sent once any of them was, and it replaces
    // their reset messages when both are due in one run.
    const resetKeys = today.event_ids.flatMap((id) =>
      [id, ...(events.find((x) => x.id === id)?.same_as ?? [])].map((k) => `reset:${k}`),
    );
    const covered = new Set(resetKeys);
    const rest = messages.filter((m) => m.message.kind !== 'reset' || !m.keys.some((k) => covered.has(k)));
    return [...rest, due(`confirmed:${today.date}`, fields, o, { keys: [`confirmed:${today.date}`, ...resetKeys] })];
  }
  return messages;
}

/**
 * One message standing for the messages due past the per-run cap. Its key is a hash of the keys it covers, so a
 * retry of the same digest carries the same Idempotency-Key.
 */
function digest(covers: readonly string[], asOf: Date, o: PlanOptions): Due {
  const t = translator(o.lang);
  const id = `digest-${hash('sha256', [...covers].sort().join('\n'), 'hex').slice(0, 16)}`;
  const fields: MessageFields = {
    kind: 'digest',
    id,
    type: 'global_reset',
    title: t('follow:notify.digest_title', { count: covers.length }),
    summary: t('follow:notify.digest_summary', { count: covers.length }),
    date: asOf.toISOString().slice(0, 10),
    api: 'history?type=global_reset',
  };
  return due(`digest:${id}`, fields, o, { covers: [...covers] });
}

/** A delivery log key: the channel and the message key. */
const pair = (channel: string, key: string): string => `${channel}\u0000${key}`;

/** The keys of every message whose window is open now, sent or not: the sent log keeps these whatever their age. */
export const openNotificationKeys = (...args: Parameters<typeof dueMessages>): Set<string> =>
  new Set(dueMessages(...args).flatMap((m) => m.keys));

/**
 * The deliveries due now: per channel, every message due (dueMessages) not yet sent to that channel and not given up
 * on (failing for longer than NOTIFY_RETRY_MS); at most NOTIFY_MAX_PER_RUN of them, and past that one digest standing
 * for the rest.
 */
export function planNotifications(
  log: NotifyLog,
  events: readonly Event[],
  upcoming: Announcement | null,
  today: TodayStatus,
  asOf: Date,
  o: PlanOptions,
): Delivery[] {
  const messages = dueMessages(events, upcoming, today, asOf, o);
  const sent = new Set(log.sent.map((s) => pair(s.channel, s.key)));
  const expired = log.failed.filter((f) => asOf.getTime() - Date.parse(f.first_failed_at) > NOTIFY_RETRY_MS);
  const gaveUp = new Set(expired.map((f) => pair(f.channel, f.key)));
  const out: Delivery[] = [];
  for (const channel of o.channels) {
    const seen = (k: string) => sent.has(pair(channel, k));
    const given = (k: string) => gaveUp.has(pair(channel, k));
    // A digest that failed is retried as it was (same resets, same Idempotency-Key), never split into single messages.
    const retry = log.failed.find(
      (f) => f.channel === channel && f.key.startsWith('digest:') && f.covers !== undefined && !given(f.key),
    );
    const pending = new Set(retry?.covers ?? []);
    const due = messages.filter((m) => !m.keys.some(seen) && !pending.has(m.keys[0]!) && !given(m.keys[0]!));
    // The announcement and a confirmed day (two at most) always go out on their own; resets fill the rest of the cap.
    const resets = due.filter((m) => m.message.kind === 'reset');
    const room = Math.max(0, NOTIFY_MAX_PER_RUN - (due.length - resets.length));
    const single = new Set(resets.slice(0, room));
    for (const m of due) if (m.message.kind !== 'reset' || single.has(m)) out.push({ channel, ...m });
    // One digest per run at most: a retried one first; a new overflow waits for the next run.
    const covers = retry ? retry.covers! : resets.slice(room).map((m) => m.keys[0]!);
    if (covers.length > 0) out.push({ channel, ...digest(covers, asOf, o) });
  }
  return out;
}

export interface DeliveryOutcome {
  channel: string;
  key: string;
  /** A digest's covered keys: recorded as sent together with `key`. */
  covers?: readonly string[];
  /** `skipped`: the run's notification budget ran out before it was tried; it is due again next run. */
  result: 'sent' | 'failed' | 'skipped';
  detail: string;
}

/**
 * The log after this run's outcomes: successes recorded (a digest's covered keys with it), failures counted from
 * their first, entries older than SENT_LOG_KEEP_MS dropped unless their key is still `open` (openNotificationKeys).
 */
export function recordOutcomes(
  log: NotifyLog,
  outcomes: readonly DeliveryOutcome[],
  asOf: Date,
  open: ReadonlySet<string> = new Set(),
): NotifyLog {
  const at = asOf.toISOString();
  const now = asOf.getTime();
  const sentNow = outcomes.filter((o) => o.result === 'sent');
  const failed = new Map(log.failed.map((f) => [pair(f.channel, f.key), f]));
  for (const o of sentNow) failed.delete(pair(o.channel, o.key));
  for (const o of outcomes.filter((x) => x.result === 'failed')) {
    const prev = failed.get(pair(o.channel, o.key));
    failed.set(pair(o.channel, o.key), {
      channel: o.channel,
      key: o.key,
      first_failed_at: prev?.first_failed_at ?? at,
      attempts: (prev?.attempts ?? 0) + 1,
      ...(o.covers ? { covers: [...o.covers] } : {}),
    });
  }
  const fresh = sentNow.flatMap((o) => [o.key, ...(o.covers ?? [])].map((key) => ({ channel: o.channel, key, at })));
  const sent = [...log.sent, ...fresh].filter((s) => now - Date.parse(s.at) <= SENT_LOG_KEEP_MS || open.has(s.key));
  return { sent, failed: [...failed.values()].filter((f) => now - Date.parse(f.first_failed_at) <= SENT_LOG_KEEP_MS) };
}
