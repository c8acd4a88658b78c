// Real loopback receivers: one that fails then recovers, one that rate-limits, one that hangs, and each channel kind's
// request shape.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { channelsFromEnv, parseChannel } from '../../builder/notify/channels.ts';
import type { Delivery, NotifyMessage } from '../../builder/notify/plan.ts';
import { createNotifier } from '../../builder/notify/send.ts';
import { redactUrl } from '../../builder/redact.ts';
import { startLoopback, type LoopbackServer } from '../helpers/build.ts';

const servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

interface Seen {
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

async function receiver(respond: (n: number, res: ServerResponse) => void): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const s = await startLoopback((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(body) });
      respond(seen.length, res);
    });
  });
  servers.push(s);
  return { url: s.url, seen };
}

const ok = (_n: number, res: ServerResponse) => {
  res.writeHead(200);
  res.end('{}');
};

const message = (id: string): NotifyMessage => ({
  kind: 'reset',
  idempotency_key: `reset-status-api:reset:${id}`,
  id,
  type: 'global_reset',
  lang: 'en',
  title: 'Codex usage limits reset for everyone <now> & then',
  summary: 'OpenAI reset Codex usage limits.',
  occurred_at: '2026-11-21T08:00:00Z',
  announced_at: null,
  scheduled_for: null,
  date: '2026-11-21',
  links: { api: `https://api.example.test/api/events/${id}?lang=en`, source: 'https://x.com/a/status/1' },
});
const deliveriesFor = (channel: string, ids: string[]): Delivery[] =>
  ids.map((id) => ({ channel, keys: [`reset:${id}`], message: message(id) }));

describe('createNotifier', () => {
  it('retries a 503 within the run with the same Idempotency-Key; with no retries left it is a failed outcome, sent on a later run', async () => {
    const r = await receiver((n, res) => {
      res.writeHead(n === 1 || n === 3 ? 503 : 200);
      res.end();
    });
    const c = parseChannel(`${r.url}/hook`)!;
    expect(
      await createNotifier([c], { timeoutMs: 1_000, backoffBaseMs: 20 }).send(deliveriesFor(c.id, ['e1'])),
    ).toEqual([{ channel: c.id, key: 'reset:e1', result: 'sent', detail: 'HTTP 200' }]);
    const once = createNotifier([c], { timeoutMs: 1_000, retries: 0 });
    expect(await once.send(deliveriesFor(c.id, ['e1']))).toEqual([
      { channel: c.id, key: 'reset:e1', result: 'failed', detail: 'HTTP 503' },
    ]);
    expect(await once.send(deliveriesFor(c.id, ['e1']))).toEqual([
      { channel: c.id, key: 'reset:e1', result: 'sent', detail: 'HTTP 200' },
    ]);
    expect(r.seen.map((s) => s.headers['idempotency-key'])).toEqual(Array(4).fill('reset-status-api:reset:e1'));
    expect(r.seen[1]!.body).toEqual(message('e1'));
    expect(r.seen[1]!.headers['content-type']).toBe('application/json');
  });

  it("waits what a 429's Retry-After asks before the retry, and gives up at once when that passes the budget", async () => {
    const at: number[] = [];
    const r = await receiver((n, res) => {
      at.push(Date.now());
      res.writeHead(n === 1 ? 429 : n === 3 ? 429 : 200, { 'retry-after': n === 1 ? '1' : '60' });
      res.end();
    });
    const c = parseChannel(`${r.url}/hook`)!;
    expect(
      await createNotifier([c], { timeoutMs: 1_000, backoffBaseMs: 20 }).send(deliveriesFor(c.id, ['a'])),
    ).toMatchObject([{ result: 'sent' }]);
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(950);
    const t0 = Date.now();
    expect(
      await createNotifier([c], { timeoutMs: 1_000, budgetMs: 5_000, backoffBaseMs: 20 }).send(
        deliveriesFor(c.id, ['b']),
      ),
    ).toMatchObject([{ result: 'failed', detail: 'HTTP 429' }]);
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect(r.seen).toHaveLength(3);
  });

  it('does not retry a 4xx other than 429', async () => {
    const r = await receiver((_n, res) => {
      res.writeHead(404);
      res.end();
    });
    const c = parseChannel(`${r.url}/hook`)!;
    expect(
      await createNotifier([c], { timeoutMs: 1_000, backoffBaseMs: 20 }).send(deliveriesFor(c.id, ['a'])),
    ).toMatchObject([{ result: 'failed', detail: 'HTTP 404' }]);
    expect(r.seen).toHaveLength(1);
  });

  it('a hanging receiver times out and uses up at most the budget; another channel is served meanwhile', async () => {
    const hang = await receiver(() => {});
    const good = await receiver(ok);
    const [h, g] = [parseChannel(`${hang.url}/hook`)!, parseChannel(`${good.url}/hook`)!];
    const n = createNotifier([h, g], { timeoutMs: 300, budgetMs: 700 });
    const t0 = performance.now();
    const out = await n.send([...deliveriesFor(h.id, ['a', 'b', 'c', 'd']), ...deliveriesFor(g.id, ['a'])]);
    const ms = performance.now() - t0;
    expect(ms).toBeLessThan(2_500);
    expect(out.filter((o) => o.channel === g.id)).toEqual([
      { channel: g.id, key: 'reset:a', result: 'sent', detail: 'HTTP 200' },
    ]);
    const hung = out.filter((o) => o.channel === h.id);
    expect(hung.slice(0, 2).map((o) => o.detail)).toEqual(['timeout', 'timeout']);
    expect(hung.at(-1)).toMatchObject({ result: 'skipped', detail: 'budget' });
    expect(hung).toHaveLength(4);
  });

  it('a refused connection is a failed outcome, not a throw', async () => {
    const gone = await receiver(ok);
    await servers.pop()!.close();
    const c = parseChannel(`${gone.url}/hook`)!;
    const [o] = await createNotifier([c], { timeoutMs: 500, backoffBaseMs: 20 }).send(deliveriesFor(c.id, ['x']));
    expect(o).toMatchObject({ result: 'failed', detail: 'ECONNREFUSED' });
  });

  it('adapts the message to discord, slack, ntfy and telegram', async () => {
    const r = await receiver(ok);
    const env = {
      RESET_NOTIFY_WEBHOOKS: [
        `discord=${r.url}/api/webhooks/1/secret`,
        `slack=${r.url}/services/T/B/secret`,
        `ntfy=${r.url}/codex-resets`,
        'telegram=123456:ABCDEFGHIJKLMNOP_qr-st:-1001234',
      ].join(','),
    };
    const { channels, warnings } = channelsFromEnv(env);
    expect(warnings).toEqual([]);
    const userAgent = 'node:reset-status-api:v0.1.0 (+https://github.com/octo/r)';
    const n = createNotifier(channels, { timeoutMs: 1_000, telegramApiUrl: r.url, userAgent });
    const out = await n.send(channels.map((c) => ({ channel: c.id, keys: ['reset:e'], message: message('e') })));
    expect(out.every((o) => o.result === 'sent')).toBe(true);
    const by = (p: string) => r.seen.find((s) => s.path.startsWith(p))!;
    expect(by('/api/webhooks').body).toEqual({
      content: expect.stringContaining('Codex usage limits reset for everyone <now> & then\nOpenAI reset'),
      allowed_mentions: { parse: [] },
    });
    expect(by('/services').body.text).toBe(
      '*<https://api.example.test/api/events/e?lang=en|Codex usage limits reset for everyone &lt;now&gt; &amp; then>*\nOpenAI reset Codex usage limits.\n<https://x.com/a/status/1|x.com>',
    );
    expect(r.seen.find((s) => s.path === '/')!.body).toMatchObject({
      topic: 'codex-resets',
      title: message('e').title,
      click: message('e').links.api,
    });
    expect(by('/bot123456:ABCDEFGHIJKLMNOP_qr-st/sendMessage').body).toMatchObject({
      chat_id: '-1001234',
      text: expect.stringContaining('OpenAI reset'),
    });
    for (const s of r.seen) {
      expect(s.headers['idempotency-key']).toBe('reset-status-api:reset:e');
      // The run's one User-Agent, the sources' own.
      expect(s.headers['user-agent']).toBe(userAgent);
      // Sent with its length, not chunked (some receivers refuse chunked uploads); the length counts UTF-8 bytes.
      expect(s.headers['transfer-encoding']).toBeUndefined();
      expect(Number(s.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(s.body)));
    }
  });

  it('sends hostile text safely to each renderer: Slack links and text escaped, no Discord mentions, no Telegram parse mode', async () => {
    const r = await receiver(ok);
    const env = {
      RESET_NOTIFY_WEBHOOKS: [
        `discord=${r.url}/api/webhooks/1/secret`,
        `slack=${r.url}/services/T/B/secret`,
        'telegram=123456:ABCDEFGHIJKLMNOP_qr-st:-1001234',
      ].join(','),
    };
    const { channels } = channelsFromEnv(env);
    const hostile: NotifyMessage = {
      ...message('h'),
      title: 'Reset <!channel> @everyone | *now* <https://evil.test|click>',
      summary: 'a & b <@U123> c',
      links: {
        api: 'https://api.example.test/api/events/h?lang=en&x=|y',
        source: 'https://evil.test/a|b>c<!here>&z=1',
      },
    };
    await createNotifier(channels, { timeoutMs: 1_000, telegramApiUrl: r.url }).send(
      channels.map((c) => ({ channel: c.id, keys: ['reset:h'], message: hostile })),
    );
    const by = (p: string) => r.seen.find((s) => s.path.startsWith(p))!.body;
    const slack = by('/services').text as string;
    expect(slack).toBe(
      [
        '*<https://api.example.test/api/events/h?lang=en&amp;x=%7Cy|Reset &lt;!channel&gt; @everyone | *now* &lt;https://evil.test|click&gt;>*',
        'a &amp; b &lt;@U123&gt; c',
        '<https://evil.test/a%7Cb%3Ec%3C!here%3E&amp;z=1|evil.test>',
      ].join('\n'),
    );
    // Exactly the two links this message makes are Slack control sequences; nothing from the source opens another.
    expect(slack.match(/</g)).toHaveLength(2);
    expect(slack.match(/>/g)).toHaveLength(2);
    expect(by('/api/webhooks')).toEqual({
      content: expect.stringContaining('Reset <!channel> @everyone'),
      allowed_mentions: { parse: [] },
    });
    const telegram = by('/bot123456:ABCDEFGHIJKLMNOP_qr-st/sendMessage');
    expect(telegram).not.toHaveProperty('parse_mode');
    expect(Object.keys(telegram).sort()).toEqual(['chat_id', 'disable_web_page_preview', 'text']);
  });

  it('never logs a secret: labels, warnings and send logs show scheme and host only', async () => {
    const r = await receiver(ok);
    const secret = 'T0KEN-s3cret';
    const { channels, warnings } = channelsFromEnv({
      RESET_NOTIFY_WEBHOOKS: `slack=${r.url}/services/${secret}, ftp://x/${secret}, telegram=nope${secret}, telegram=123456:${secret}ABCDEFG:42`,
    });
    const lines: string[] = [...warnings, ...channels.map((c) => c.label)];
    await createNotifier(channels, { timeoutMs: 300, telegramApiUrl: r.url, log: (l) => lines.push(l) }).send(
      channels.map((c) => ({ channel: c.id, keys: ['reset:e'], message: message('e') })),
    );
    expect(channels.map((c) => c.kind)).toEqual(['slack', 'telegram']);
    expect(warnings).toHaveLength(2);
    expect(lines.length).toBeGreaterThanOrEqual(6);
    for (const l of lines) expect(l).not.toContain(secret);
    for (const c of channels) expect(c.id).not.toContain(secret);
    expect(redactUrl(`https://user:pw@hooks.example.test/x/${secret}?k=${secret}`)).toBe(
      'https://hooks.example.test/…',
    );
    expect(redactUrl('not a url')).toBe('(redacted)');
  });

  it('accepts https anywhere and plain http only on loopback', () => {
    expect(parseChannel('https://hooks.example.test/a')?.kind).toBe('webhook');
    expect(parseChannel('http://hooks.example.test/a')).toBeNull();
    expect(parseChannel('http://127.0.0.1:9/a')?.kind).toBe('webhook');
    expect(parseChannel('matrix=https://x.example.test')).toBeNull();
  });
});
