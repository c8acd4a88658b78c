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

/** https only; plain http is accepted for loopback receivers (tests, a local relay). */
function isAllowedUrl(raw: string): boolean {
  const u = URL.parse(raw);
  return u?.protocol === 'https:' || (u?.protocol === 'http:' && LOOPBACK_HOSTS.includes(u.hostname));
}

function channelId(kind: ChannelKind, value: string): string {
  return `${kind}-${createHash('sha256').update(`${kind}=${value}`).digest('hex').slice(0, 16)}`;
}

export function parseChannel(entry: string): Channel | null {
  const m = /^(discord|slack|ntfy|telegram)=(.*)$/s.exec(entry);
  const kind: ChannelKind = m ? (m[1] as ChannelKind) : 'webhook';
  const value = (m ? m[2]! : entry).trim();
  if (kind === 'telegram') {
    const t = TELEGRAM.exec(value);
    if (!t) return null;
    return {
      id: channelId(kind, value),
      kind,
      url: value,
      telegram: { token: t[1]!, chatId: t[2]! },
      label: 'telegram (bot token and chat redacted)',
    };
  }
  if (!isAllowedUrl(value)) return null;
  return { id: channelId(kind, value), kind, url: value, label: `${kind} ${redactUrl(value)}` };
}

/** The configured channels, deduplicated, and a warning (by position, never by value) for each entry skipped. */
export function channelsFromEnv(env: Readonly<Record<string, string | undefined>>): {
  channels: Channel[];
  warnings: string[];
} {
  const channels = new Map<string, Channel>();
  const warnings: string[] = [];
  (env.RESET_NOTIFY_WEBHOOKS ?? '')
    .split(',')
    .map((s) => s.trim())
    .forEach((entry, i) => {
      if (entry === '') return;
      const c = parseChannel(entry);
      if (c === null)
        warnings.push(
          `[notify/channels] RESET_NOTIFY_WEBHOOKS entry ${i + 1} is not an https URL, discord=/slack=/ntfy= URL or telegram=BOT_TOKEN:CHAT_ID; skipped`,
        );
      else channels.set(c.id, c);
    });
  return { channels: [...channels.values()], warnings };
}
