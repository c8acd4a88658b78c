// Pure: one message as the HTTP request each kind of channel expects.
import type { Channel } from './channels.ts';
import type { NotifyMessage } from './plan.ts';

const DEFAULT_TELEGRAM_API_URL = 'https://api.telegram.org';

export interface NotifyRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** Slack's three control characters in text, as Slack asks: `&amp;`, `&lt;`, `&gt;`. */
function slackEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * `<url|label>`. In the URL `|`, `<` and `>` would end the link or its URL early (a source link could then show a
 * label of its own choosing, or open a mention), so they are percent-encoded first, which names the same resource;
 * `&` is then escaped as in any text. The label is text: escaped.
 */
function slackLink(url: string, label: string): string {
  const safe = url.replace(/[|<>]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).replace(/&/g, '&amp;');
  return `<${safe}|${slackEscape(label)}>`;
}

/** The host a link points to, as the label of a source link (`x.com`); the whole URL when it has none. */
function hostLabel(url: string): string {
  return URL.parse(url)?.host || url;
}

function plainText(m: NotifyMessage): string {
  return [m.title, m.summary, m.links.api, m.links.source].filter((x): x is string => !!x).join('\n');
}

/** ntfy's JSON publishing goes to the server's root with the topic in the body. */
function ntfyRequest(url: string, m: NotifyMessage): { url: string; body: unknown } {
  const u = new URL(url);
  const parts = u.pathname.split('/').filter((p) => p !== '');
  const topic = parts.pop() ?? '';
  u.pathname = parts.length ? `/${parts.join('/')}/` : '/';
  u.search = '';
  return {
    url: u.href,
    body: {
      topic,
      title: m.title,
      message: `${m.summary}\n${m.links.source ?? ''}`.trim(),
      click: m.links.api,
      tags: ['arrows_counterclockwise'],
    },
  };
}

export function buildRequest(c: Channel, m: NotifyMessage, telegramApiUrl = DEFAULT_TELEGRAM_API_URL): NotifyRequest {
  const headers = { 'content-type': 'application/json', 'idempotency-key': m.idempotency_key };
  const json = (url: string, body: unknown): NotifyRequest => ({ url, headers, body: JSON.stringify(body) });
  switch (c.kind) {
    case 'webhook':
      return json(c.url, m);
    case 'discord':
      return json(c.url, { content: plainText(m).slice(0, 2000), allowed_mentions: { parse: [] } });
    case 'slack':
      // Slack renders mrkdwn; Discord and Telegram get plain text (no mentions, no parse mode), so only here is escaping needed.
      return json(c.url, {
        text: [
          `*${slackLink(m.links.api, m.title)}*`,
          slackEscape(m.summary),
          m.links.source ? slackLink(m.links.source, hostLabel(m.links.source)) : '',
        ]
          .filter(Boolean)
          .join('\n'),
      });
    case 'ntfy': {
      const r = ntfyRequest(c.url, m);
      return json(r.url, r.body);
    }
    case 'telegram':
      return json(`${telegramApiUrl.replace(/\/+$/, '')}/bot${c.telegram!.token}/sendMessage`, {
        chat_id: c.telegram!.chatId,
        text: plainText(m).slice(0, 4096),
        disable_web_page_preview: true,
      });
  }
}
