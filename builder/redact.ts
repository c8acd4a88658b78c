// The one way a secret-bearing address is written to a log: scheme and host only. Webhook URLs carry their secret
// in the path or query (Discord, Slack, ntfy topics, Telegram bot tokens), so nothing after the host is ever shown.
export function redactUrl(raw: string): string {
  try {
    const u = new URL(raw);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return '(redacted)';
    return `${u.protocol}//${u.host}/…`;
  } catch {
    return '(redacted)';
  }
}
