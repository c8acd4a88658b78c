// `reset-status mcp` driven by the MCP SDK's own Client over stdio (the committed bin in a child process) against the
// real preview: initialize, the four tools listed, each called, the OpenAPI resource, and a preview that is down.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, downUrl, startApi, type Api } from './fixture.ts';

let api: Api;

async function connect(baseUrl: string): Promise<Client> {
  const client = new Client({ name: 'reset-status-test', version: '0.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp'],
      env: { PATH: process.env.PATH ?? '', RESET_STATUS_API_URL: baseUrl, LANG: 'C' },
      stderr: 'pipe',
    }),
  );
  return client;
}

type TextResult = { content: { type: string; text: string }[]; isError?: boolean };
const text = (r: unknown) => (r as TextResult).content.map((c) => c.text).join('\n');
/** The JSON payload that opens a tool's text. */
const payload = (r: unknown) => JSON.parse(text(r).split('\n\nRules:')[0]!) as Record<string, unknown>;

beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => api?.close());

describe('reset-status mcp', () => {
  it('initializes, lists the four tools with input schemas, and answers each from the API with the rules and sources', async () => {
    const client = await connect(api.fresh.url);
    try {
      expect(client.getServerVersion()?.name).toBe('reset-status');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([
        'reset_event',
        'reset_forecast',
        'reset_history',
        'reset_today',
      ]);
      const schema = (name: string) =>
        tools.find((t) => t.name === name)!.inputSchema as { properties: Record<string, { enum?: string[] }> };
      expect(schema('reset_history').properties.type!.enum).toEqual(['global_reset', 'banked_grant', 'policy_change']);
      expect(Object.keys(schema('reset_event').properties).sort()).toEqual(['id', 'lang']);
      expect(schema('reset_today').properties.lang!.enum).toEqual(['en', 'de', 'ko', 'ja', 'zh']);

      const today = await client.callTool({ name: 'reset_today', arguments: { lang: 'de' } });
      expect(today.isError).toBeFalsy();
      expect(payload(today)).toMatchObject({ answer: 'yes', reset: true, stale: false });
      expect(text(today)).toContain('Unknown is not no');
      expect(text(today)).toContain(`${api.fresh.url}/api/latest?lang=de`);
      expect(text(today)).toContain('https://tracker.example/claims/cli-reset');

      const forecast = await client.callTool({ name: 'reset_forecast', arguments: {} });
      expect(payload(forecast)).toHaveProperty('probability_24h');
      expect(text(forecast)).toContain('A forecast is a probability, not an announcement');

      const history = await client.callTool({ name: 'reset_history', arguments: { type: 'global_reset', limit: 3 } });
      const events = payload(history).events as { id: string; type: string }[];
      expect(events).toHaveLength(3);
      expect(events.every((e) => e.type === 'global_reset')).toBe(true);

      const event = await client.callTool({ name: 'reset_event', arguments: { id: 'sr-cli-reset' } });
      expect(payload(event)).toMatchObject({ event: { id: 'sr-cli-reset', type: 'global_reset' } });
      // A tracker's record comes with its credit, and the agent is told to show it.
      expect(payload(event).credits).toEqual([
        { name: 'codex-resets.com', url: 'https://codex-resets.com/', notice: 'Data: codex-resets.com' },
      ]);
      expect(text(event)).toContain(
        'Credits (show them with this data, as the sources ask):\n- Data: codex-resets.com (https://codex-resets.com/)',
      );
      expect(text(event)).toContain(`${api.fresh.url}/api/events/sr-cli-reset`);

      const missing = await client.callTool({ name: 'reset_event', arguments: { id: 'no-such-event' } });
      expect(missing.isError).toBe(true);
      expect(text(missing)).toContain('not_found');

      const bad = await client.callTool({ name: 'reset_history', arguments: { type: 'nonsense' } });
      expect(bad.isError).toBe(true); // the input schema refuses it

      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).toEqual([`${api.fresh.url}/api/openapi.json`]);
      const doc = await client.readResource({ uri: resources[0]!.uri });
      expect(JSON.parse((doc.contents[0] as { text: string }).text)).toMatchObject({ openapi: '3.1.0' });
    } finally {
      await client.close();
    }
  });

  it('stale data is reported unknown, with the rule in words', async () => {
    const client = await connect(api.clientStale.url);
    try {
      const today = await client.callTool({ name: 'reset_today', arguments: {} });
      expect(payload(today)).toMatchObject({ answer: 'unknown', reset: null, stale: true });
      expect(text(today)).toContain('Stale data is unknown');
    } finally {
      await client.close();
    }
  });

  it('an API that is down gives a tool error result, and the server keeps answering', async () => {
    const client = await connect(await downUrl());
    try {
      for (const name of ['reset_today', 'reset_forecast']) {
        const r = await client.callTool({ name, arguments: {} });
        expect(r.isError).toBe(true);
        expect(text(r)).toMatch(/reset-status error network: cannot reach .*The answer is UNKNOWN, not no\./s);
      }
      expect((await client.listTools()).tools).toHaveLength(4);
    } finally {
      await client.close();
    }
  });
});
