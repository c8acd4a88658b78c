// Issue #40 in the clients: a forecast past its meta.stale_after is no probability, by the client's own clock and
// whatever the server sent, and the CLI exits 2 as for a stale answer. Against real loopback servers: the real preview
// of a real build (fresh; a 2-hour-old build the preview serves as if current; the same build with the real clock, whose
// forecast the edge serves expired) and a hostile API that sends probabilities with a stale_after already past.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createResetStatusClient, trustedProbabilities } from '../../clients/src/client.ts';
import { BIN, runCli, startApi, type Api } from './fixture.ts';
import { startHostileApi, type HostileApi } from './hostile.ts';

let api: Api;
let hostile: HostileApi;
/** An instant already past, as the hostile API's stale_after. */
const PAST = () => new Date(Date.now() - 1_000).toISOString();

beforeAll(async () => {
  api = await startApi();
  hostile = await startHostileApi();
});
afterAll(async () => {
  await api?.close();
  await hostile?.close();
});

interface ForecastJson {
  stale: boolean;
  stale_after: string;
  probability_24h: number | null;
  probability_48h: number | null;
  document: { probability_24h: number | null; explanation: string; meta: { stale_after: string } };
}

const cli = async (url: string, json = false) =>
  runCli(['forecast', ...(json ? ['--json'] : [])], { RESET_STATUS_API_URL: url });

describe('reset-status forecast', () => {
  it('a fresh forecast: its probabilities and explanation, exit 0', async () => {
    const r = await cli(api.fresh.url);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^Chance of a global reset: 24h \d+\.\d%, 48h \d+\.\d% \(a forecast, not an announcement\) — /,
    );
    const j = JSON.parse((await cli(api.fresh.url, true)).stdout) as ForecastJson;
    expect(j.stale).toBe(false);
    expect(j.probability_24h).toBe(j.document.probability_24h);
    expect(j.probability_24h).toBeGreaterThan(0);
  });

  it('past its stale_after by the client’s clock, though the server still serves the numbers: none, exit 2', async () => {
    const served = (await (await fetch(`${api.clientStale.url}/api/forecast`)).json()) as ForecastJson['document'];
    expect(served.probability_24h).toBeGreaterThan(0);
    expect(Date.parse(served.meta.stale_after)).toBeLessThan(Date.now());
    const r = await cli(api.clientStale.url);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(
      /^the data is out of date \(stale_after [^)]+\) · Chance of a global reset: 24h —, 48h — \(a forecast, not an announcement\)\n$/,
    );
    // Nothing of the live explanation, which states the very numbers.
    expect(r.stdout).not.toContain(served.explanation);
    const j = await cli(api.clientStale.url, true);
    expect(j.code).toBe(2);
    expect(JSON.parse(j.stdout)).toMatchObject({
      stale: true,
      probability_24h: null,
      probability_48h: null,
      document: { probability_24h: served.probability_24h },
    });
  });

  it('builds stopped 2 hours ago, the edge’s expired forecast: none, exit 2', async () => {
    const j = await cli(api.stopped.url, true);
    expect(j.code).toBe(2);
    const out = JSON.parse(j.stdout) as ForecastJson;
    expect(out).toMatchObject({ stale: true, probability_24h: null, probability_48h: null });
    expect(out.document).toMatchObject({ probability_24h: null });
    expect(out.document.explanation).toMatch(/^No reliable probability: this forecast, issued at .* expired at /);
    const line = await cli(api.stopped.url);
    expect(line.code).toBe(2);
    expect(line.stdout).toContain('24h —, 48h —');
  });

  it('a server that sends probabilities with a stale_after already past: none, exit 2, whatever it sent', async () => {
    hostile.staleAfter = PAST();
    try {
      const r = await cli(hostile.url);
      expect(r.code).toBe(2);
      expect(r.stdout).toContain('24h —, 48h —');
      expect(r.stdout).not.toMatch(/12\.5|25\.0/);
      const j = JSON.parse((await cli(hostile.url, true)).stdout) as ForecastJson;
      expect(j).toMatchObject({ stale: true, probability_24h: null, probability_48h: null });
      expect(j.document.probability_24h).toBe(0.125);
    } finally {
      hostile.staleAfter = null;
    }
  });
});

describe('the typed client', () => {
  it('trusts the probabilities until meta.stale_after by its own clock, and none from that instant', async () => {
    const at = (now: number) => createResetStatusClient({ baseUrl: api.fresh.url, now: () => now }).forecast();
    const fresh = await at(Date.now());
    expect(fresh.stale).toBe(false);
    expect(trustedProbabilities(fresh).probability_24h).toBe(fresh.data.probability_24h);
    const later = await at(Date.parse(fresh.staleAfter));
    expect(later.stale).toBe(true);
    expect(later.data.probability_24h).toBeGreaterThan(0); // as the server sent it
    expect(trustedProbabilities(later)).toEqual({ probability_24h: null, probability_48h: null });
  });

  it('none from a server whose stale_after is past, and none for a value that is no probability', async () => {
    hostile.staleAfter = PAST();
    try {
      const f = await createResetStatusClient({ baseUrl: hostile.url, retries: 0 }).forecast();
      expect(f).toMatchObject({ stale: true, data: { probability_24h: 0.125 } });
      expect(trustedProbabilities(f)).toEqual({ probability_24h: null, probability_48h: null });
    } finally {
      hostile.staleAfter = null;
    }
    const fresh = await createResetStatusClient({ baseUrl: hostile.url, retries: 0 }).forecast();
    expect(trustedProbabilities(fresh)).toEqual({ probability_24h: 0.125, probability_48h: 0.25 });
    for (const bad of [0, 1, -0.5, 7, Number.NaN])
      expect(
        trustedProbabilities({ ...fresh, data: { ...fresh.data, probability_24h: bad } }).probability_24h,
      ).toBeNull();
  });
});

describe('reset-status mcp: reset_forecast', () => {
  async function forecastVia(baseUrl: string): Promise<{ payload: Record<string, unknown>; text: string }> {
    const client = new Client({ name: 'reset-status-test', version: '0.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp'],
        env: { PATH: process.env.PATH ?? '', RESET_STATUS_API_URL: baseUrl, LANG: 'C' },
        stderr: 'pipe',
      }),
    );
    try {
      const r = (await client.callTool({ name: 'reset_forecast', arguments: {} })) as {
        content: { text: string }[];
      };
      const text = r.content.map((c) => c.text).join('\n');
      return { payload: JSON.parse(text.split('\n\nRules:')[0]!) as Record<string, unknown>, text };
    } finally {
      await client.close();
    }
  }

  it('gives no probability, and no explanation quoting one, past stale_after: by its clock, at the edge, from a hostile server', async () => {
    const fresh = await forecastVia(api.fresh.url);
    expect(fresh.payload).toMatchObject({ stale: false });
    expect(fresh.payload.probability_24h).toEqual(expect.any(Number));
    for (const url of [api.clientStale.url, api.stopped.url]) {
      const { payload, text } = await forecastVia(url);
      expect(payload).toMatchObject({ stale: true, probability_24h: null, probability_48h: null, explanation: null });
      expect(text).toContain('a forecast past it gives no probability');
    }
    hostile.staleAfter = PAST();
    try {
      const { payload } = await forecastVia(hostile.url);
      expect(payload).toMatchObject({ stale: true, probability_24h: null, probability_48h: null, explanation: null });
    } finally {
      hostile.staleAfter = null;
    }
  });
});

describe('reset-status statusline', () => {
  it('quotes no forecast: it reads today’s answer only', async () => {
    const before = hostile.requests.length;
    const r = await runCli(['statusline'], {
      RESET_STATUS_API_URL: hostile.url,
      RESET_STATUS_CACHE_DIR: await mkdtemp(path.join(os.tmpdir(), 'rs-cache-')),
    });
    expect(r.stdout.trim()).toBe('codex ↺ today');
    expect(hostile.requests.slice(before).some((u) => u.startsWith('/api/forecast'))).toBe(false);
  });
});
