// Notification channels from RESET_NOTIFY_WEBHOOKS (a comma-separated secret). A bad entry is skipped with a warning
// that never repeats its value: one typo must not stop the API from being published.
import { createHash } from 'node:crypto';
import { redactUrl } from '../redact.ts';

type ChannelKind = 'webhook' | 'discord' | 'slack' | 'ntfy' | 'telegram';

export interface Channel {
  /** Stable and secret-free (a hash of the entry): what state records deliveries under. */
  id: string;
  kind: ChannelKind;
  /** The URL, or for telegram the bot token and chat id. Secret: never log it, log `label`. */
  url: string;
  telegram?: { token: string; chatId: string };
  /** Safe to log. */
  label: string;
}

const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]'];
const TELEGRAM = /^(\d{1,20}:[A-Za-z0-9_-]{10,100}):(-?\d{1,20}|@[A-Za-z0-9_]{4,64})$/;

export function parseChannel(entry: string): Channel | null {
  const m = /^(discord|slack|ntfy|telegram)=(.*)$/s.exec(entry);
  const kind = (m?.[1] ?? 'webhook') as ChannelKind;
  const url = (m ? m[2]! : entry).trim();
  const id = `${kind}-${createHash('sha256').update(`${kind}=${url}`).digest('hex').slice(0, 16)}`;
  if (kind === 'telegram') {
    const t = TELEGRAM.exec(url);
    const label = 'telegram (bot token and chat redacted)';
    return t && { id, kind, url, telegram: { token: t[1]!, chatId: t[2]! }, label };
  }
  // https only; plain http is accepted for loopback receivers (tests, a local relay).
  const u = URL.parse(url);
  const allowed = u?.protocol === 'https:' || (u?.protocol === 'http:' && LOOPBACK_HOSTS.includes(u.hostname));
  return allowed ? { id, kind, url, label: `${kind} ${redactUrl(url)}` } : null;
}

/** The configured channels, deduplicated, and a warning (by position, never by value) for each entry skipped. */
export function channelsFromEnv(env: Readonly<Record<string, string | undefined>>) {
  const channels = new Map<string, Channel>();
  const warnings: string[] = [];
  const expected = 'an https URL, discord=/slack=/ntfy= URL or telegram=BOT_TOKEN:CHAT_ID';
  (env.RESET_NOTIFY_WEBHOOKS ?? '').split(',').forEach((entry, i) => {
    const c = entry.trim() === '' ? undefined : parseChannel(entry.trim());
    if (c === null) warnings.push(`[notify/channels] RESET_NOTIFY_WEBHOOKS entry ${i + 1} is not ${expected}; skipped`);
    if (c) channels.set(c.id, c);
  });
  return { channels: [...channels.values()], warnings };
}
