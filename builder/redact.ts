// The one way a notification channel's address is written to a log: scheme and host only. Webhook URLs carry their
// secret in the path itself (Discord `/api/webhooks/ID/TOKEN`, Slack `/services/T/B/SECRET`, an ntfy topic, a
// Telegram bot token), so this is stricter than redacting a source URL (userinfo and query values): nothing after
// the host is ever shown.
export function redactUrl(raw: string): string {
  try {
    const u = new URL(raw);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return '(redacted)';
    return `${u.protocol}//${u.host}/…`;
  } catch {
    return '(redacted)';
  }
}
