// `reset-status today --plan P` and the MCP tool's `plan`, as users run them (the committed bin in a child process)
// against the real preview of a real build: today holds a reviewed reset whose post says "for all paid plans" and
// "Lands in the next hour" (a verified record and its reach decision added to a copy of data/), and the fixture's
// unreviewed tracker record, whose reach is not stated.
import { cp, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPreview, type PreviewServer } from '../../builder/edge/preview.ts';
import { createTempBuild } from '../helpers/build.ts';
import { BIN, runCli, startApi, type Api } from './fixture.ts';

const DATA = path.resolve(import.meta.dirname, '../../data');
const POST = 'Codex usage limits have been reset for all paid plans. Lands in the next hour. Enjoy!';
let reviewed: PreviewServer;
let unreviewed: Api;
let postedAt: string;

beforeAll(async () => {
  const now = Date.now();
  postedAt = new Date(Math.floor((now - 60_000) / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  const data = path.join(await mkdtemp(path.join(os.tmpdir(), 'rs-plan-')), 'data');
  await cp(DATA, data, { recursive: true });
  await mkdir(path.join(data, 'verified'), { recursive: true });
  await writeFile(
    path.join(data, 'verified', 'plan-today.json'),
    JSON.stringify({
      id: 'verified-plan-today',
      type: 'global_reset',
      status: 'verified',
      reason: 'celebration',
      origin: 'curated',
      time_precision: 'second',
      time_basis: 'announcement',
      announced_at: postedAt,
      observed_at: null,
      effective_at: null,
      evidence_text: POST,
      sources: [{ platform: 'X', url: 'https://x.com/a/status/7' }],
      author_notes: { en: 'Test post.' },
      verification_notes: { en: 'Seen on the account.' },
    }),
  );
  const file = path.join(data, 'reach-review.json');
  const review = JSON.parse(await readFile(file, 'utf8'));
  review.events['verified-plan-today'] = {
    plans: { value: ['all_paid'], quote: 'reset for all paid plans' },
    products: { value: ['codex'], quote: 'Codex usage limits' },
    models: null,
    cohort: null,
    limits: null,
    landing: { as_written: 'Lands in the next hour', within_minutes: 60, quote: 'Lands in the next hour' },
    why: 'The post names every paid plan and bounds the landing at one hour.',
    reviewed_by: 'test',
    reviewed_at: postedAt.slice(0, 10),
  };
  await writeFile(file, JSON.stringify(review));
  const b = await createTempBuild({ edgeStore: true });
  await b.build(new Date(now).toISOString(), [], data);
  reviewed = await startPreview({ root: b.outDir, port: 0 });
  unreviewed = await startApi();
}, 120_000);
afterAll(async () => {
  await reviewed?.close();
  await unreviewed?.close();
});

const until = () => new Date(Date.parse(postedAt) + 3_600_000).toISOString().replace('.000Z', 'Z');
const env = (url: string) => ({ RESET_STATUS_API_URL: url });

describe('reset-status today --plan', () => {
  it('a paid plan: yes, with what the post states and until when it is still landing; exit 0', async () => {
    const r = await runCli(['today', '--plan', 'plus'], env(reviewed.url));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^Yes: today's reset reached plus — all paid plans · Codex · lands by .* · propagating until (\d{4}-\d\d-\d\d )?\d\d:\d\d UTC/,
    );
    // The time alone on the build's day, with its date when the window ends after midnight UTC.
    expect(r.stdout).toContain(`${until().slice(11, 16)} UTC`);
  });

  it('while a global reset lands, today (with or without --plan) says using a banked reset now may waste it', async () => {
    for (const args of [['today'], ['today', '--plan', 'pro']]) {
      const r = await runCli(args, env(reviewed.url));
      expect(r.stdout).toMatch(
        / · A global reset is landing until (\d{4}-\d\d-\d\d )?\d\d:\d\d UTC: using a banked reset now may waste it\.$/m,
      );
    }
    const j = JSON.parse((await runCli(['today', '--json'], env(reviewed.url))).stdout) as {
      banked_reset_warning: unknown;
    };
    expect(j.banked_reset_warning).toMatchObject({ kind: 'landing', at: until() });
    // The fixture's tracker announces a global reset two hours ahead: the warning restates that announcement.
    const announced = JSON.parse((await runCli(['today', '--json'], env(unreviewed.fresh.url))).stdout) as {
      banked_reset_warning: { kind: string; note: string };
    };
    expect(announced.banked_reset_warning.kind).toBe('announced');
    expect(announced.banked_reset_warning.note).toMatch(
      /^A global reset is announced for .* UTC: using a banked reset now may waste it\.$/,
    );
  });

  it('free under "all paid plans": not for your plan, exit 0; --json names the answer and the landing end', async () => {
    const r = await runCli(['today', '--plan', 'free', '--json'], env(reviewed.url));
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(j).toMatchObject({
      plan: 'free',
      plan_answer: 'not_for_plan',
      propagating_until: until(),
      answer: 'yes',
      reset: true,
      stale: false,
    });
    expect((j.today_reach as { event_ids: string[] }).event_ids).toEqual(['verified-plan-today']);
    expect((await runCli(['today', '--plan', 'free', '--lang', 'ko'], env(reviewed.url))).stdout).toMatch(
      /^내 요금제 대상 아님: /,
    );
  });

  it('an unreviewed tracker record: not stated, exit 2, never yes', async () => {
    const r = await runCli(['today', '--plan', 'pro', '--json'], env(unreviewed.fresh.url));
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({
      plan: 'pro',
      plan_answer: 'not_stated',
      answer: 'yes',
      propagating_until: null,
    });
    expect((await runCli(['today', '--plan', 'pro'], env(unreviewed.fresh.url))).stdout).toMatch(
      /^Not stated: today's post does not say whether it reached pro/,
    );
  });

  it('stale at the edge: unknown, exit 2; an unknown plan is a usage error, exit 1', async () => {
    const stale = await runCli(['today', '--plan', 'plus', '--json'], env(unreviewed.edgeStale.url));
    expect(stale.code).toBe(2);
    expect(JSON.parse(stale.stdout)).toMatchObject({ plan_answer: 'unknown' });
    const bad = await runCli(['today', '--plan', 'gold'], env(reviewed.url));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--plan wants one of free, go, plus, pro, business, enterprise, edu');
  });
});

describe('MCP reset_today with a plan', () => {
  it("answers per plan and keeps the post's words in the quoted block, out of the answer", async () => {
    const client = new Client({ name: 'reset-status-test', version: '0.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp'],
        env: { PATH: process.env.PATH ?? '', RESET_STATUS_API_URL: reviewed.url, LANG: 'C' },
        stderr: 'pipe',
      }),
    );
    try {
      const { tools } = await client.listTools();
      const schema = tools.find((t) => t.name === 'reset_today')!.inputSchema as {
        properties: Record<string, { enum?: string[] }>;
      };
      expect(schema.properties.plan!.enum).toEqual(['free', 'go', 'plus', 'pro', 'business', 'enterprise', 'edu']);
      const r = (await client.callTool({ name: 'reset_today', arguments: { plan: 'business' } })) as {
        content: { text: string }[];
      };
      const [answer, quotedBlock] = r.content.map((c) => c.text);
      const payload = JSON.parse(answer!.split('\n\nRules:')[0]!) as Record<string, unknown>;
      expect(payload).toMatchObject({
        plan: 'business',
        plan_answer: 'yes',
        propagating_until: until(),
        banked_reset_warning: { kind: 'landing', at: until() },
      });
      // The post's own words sit only in the quoted block.
      expect(answer).not.toContain('reset for all paid plans');
      expect(answer).not.toContain('Lands in the next hour');
      expect(quotedBlock).toMatch(/^QUOTED THIRD-PARTY TEXT/);
      expect(quotedBlock).toContain('"reach.plans.quote": "reset for all paid plans"');
      expect(quotedBlock).toContain('"reach.landing.as_written": "Lands in the next hour"');
    } finally {
      await client.close();
    }
  });
});
