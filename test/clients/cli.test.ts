// The `reset-status` bin as users run it (the committed clients/dist bundle in a child process) against the real
// preview of a real build over loopback: every command, its exit code, the --json shape, the statusline's disk cache,
// freshness (the edge's unknown variant and a document stale by the client's own clock), a 404 and an API that is down.
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, downUrl, execFile, runCli, startApi, startProxy, type Api } from './fixture.ts';

let api: Api;
let env: Record<string, string>;
const tmpCache = () => mkdtemp(path.join(os.tmpdir(), 'rs-cache-'));

beforeAll(async () => {
  api = await startApi();
  env = { RESET_STATUS_API_URL: api.fresh.url, RESET_STATUS_CACHE_DIR: await tmpCache() };
});
afterAll(async () => api?.close());

describe('reset-status today', () => {
  it('prints the answer in one line with the reason and the last check, exit 0', async () => {
    const latest = (await (await fetch(`${api.fresh.url}/api/latest`)).json()) as {
      reset: boolean;
      today: { explanation: string };
      last_source_check_at: string;
      upcoming: { summary: string; scheduled_for: string };
    };
    expect(latest.reset).toBe(true);
    expect(latest.upcoming.scheduled_for).toBeTruthy();
    for (const args of [[], ['today']]) {
      const r = await runCli(args, env);
      expect(r.code).toBe(0);
      // The answer on one line, then the credit of the tracker whose record it shows, as the tracker asks.
      expect(r.stdout.trimEnd().split('\n')).toEqual([
        expect.stringContaining('Yes: Codex usage limits were reset today'),
        'Data: codex-resets.com (https://codex-resets.com/)',
      ]);
      expect(r.stdout).toContain(latest.today.explanation);
      expect(r.stdout).toContain(`last check: ${latest.last_source_check_at}`);
      expect(r.stdout).toContain(` · announced: ${latest.upcoming.summary} (${latest.upcoming.scheduled_for})`);
      expect(r.stdout).not.toContain('\x1b['); // not a TTY: no colour
    }
  });

  it('--json gives the trusted answer and the document', async () => {
    const r = await runCli(['--json'], env);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as Record<string, unknown> & {
      document: { reset: boolean; meta: { stale_after: string } };
    };
    expect(j).toMatchObject({
      answer: 'yes',
      reset: true,
      stale: false,
      upcoming: { id: 'sr-cli-next' },
      stale_after: j.document.meta.stale_after,
    });
    expect(typeof j.reason).toBe('string');
    expect(typeof j.last_source_check_at).toBe('string');
  });

  it('answers in --lang, else the language of LANG, else English', async () => {
    expect((await runCli(['--lang', 'de'], env)).stdout).toMatch(/^Ja: /);
    expect((await runCli([], { ...env, LANG: 'ja_JP.UTF-8' })).stdout).toMatch(/^はい: /);
    expect((await runCli([], { ...env, LANG: 'fr_FR.UTF-8' })).stdout).toMatch(/^Yes: /);
    const bad = await runCli(['--lang', 'fr'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--lang wants one of en, de, ko, ja, zh');
  });

  it('colours only on a TTY, and never with NO_COLOR', async () => {
    // `script` gives the bin a pseudo-terminal as stdout.
    const tty = (extra: Record<string, string>) =>
      new Promise<string>((resolve) => {
        execFile(
          'script',
          ['-qec', `${process.execPath} ${BIN}`, '/dev/null'],
          {
            env: {
              PATH: process.env.PATH ?? '',
              TERM: 'xterm',
              LANG: 'C',
              RESET_STATUS_API_URL: api.fresh.url,
              ...extra,
            },
          },
          (_e, stdout) => resolve(stdout),
        );
      });
    expect(await tty({})).toContain('\x1b[32mYes: ');
    const plain = await tty({ NO_COLOR: '1' });
    expect(plain).toContain('Yes: ');
    expect(plain).not.toContain('\x1b[');
  });

  it('the edge past stale_after serves unknown: exit 2', async () => {
    const r = await runCli(['--json'], { ...env, RESET_STATUS_API_URL: api.edgeStale.url });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ answer: 'unknown', reset: null });
  });

  it('a document past its stale_after by the client’s own clock is unknown, never trusted: exit 2', async () => {
    const doc = (await (await fetch(`${api.clientStale.url}/api/latest`)).json()) as {
      reset: boolean | null;
      meta: { stale_after: string };
    };
    expect(doc.reset).toBe(false); // the edge still serves it as an answer
    expect(Date.parse(doc.meta.stale_after)).toBeLessThan(Date.now());
    const r = await runCli(['--json'], { ...env, RESET_STATUS_API_URL: api.clientStale.url });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ answer: 'unknown', reset: null, stale: true });
    const line = await runCli([], { ...env, RESET_STATUS_API_URL: api.clientStale.url });
    expect(line.stdout).toMatch(/^Unknown: .*the data is out of date/);
  });

  it('an API that is down: exit 1 with a clear message (and --base-url wins over the environment)', async () => {
    const down = await downUrl();
    const r = await runCli(['--base-url', down], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`reset-status: cannot reach ${down}/api/latest`);
    expect(r.stdout).toBe('');
  });
});

describe('reset-status forecast, history, event', () => {
  it('forecast: probabilities, said to be a forecast; --json; stale → exit 2', async () => {
    const r = await runCli(['forecast'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^Chance of a global reset: 24h (\d+\.\d%|—), 48h (\d+\.\d%|—) \(a forecast, not an announcement\)/,
    );
    const j = JSON.parse((await runCli(['forecast', '--json'], env)).stdout) as {
      stale: boolean;
      document: { probability_24h: unknown };
    };
    expect(j.stale).toBe(false);
    expect(j.document).toHaveProperty('probability_24h');
    expect((await runCli(['forecast'], { ...env, RESET_STATUS_API_URL: api.clientStale.url })).code).toBe(2);
  });

  it('history --type --limit, and event <id>', async () => {
    const r = await runCli(['history', '--type', 'global_reset', '--limit', '2', '--json'], env);
    expect(r.code).toBe(0);
    const h = JSON.parse(r.stdout) as { count: number; events: { id: string; type: string }[] };
    expect(h.events).toHaveLength(2);
    expect(h.events.every((e) => e.type === 'global_reset')).toBe(true);
    expect(h.events[0]!.id).toBe('sr-cli-reset');
    const text = await runCli(['history', '--limit', '1'], env);
    expect(text.stdout.trimEnd().split('\n')).toEqual([
      expect.stringContaining('sr-cli-reset'),
      'Data: codex-resets.com (https://codex-resets.com/)',
    ]);
    expect(JSON.parse(r.stdout).credits).toEqual([
      { name: 'codex-resets.com', url: 'https://codex-resets.com/', notice: 'Data: codex-resets.com' },
    ]);
    const e = await runCli(['event', 'sr-cli-reset'], env);
    expect(e.code).toBe(0);
    expect(e.stdout).toContain('global_reset  sr-cli-reset');
    expect(JSON.parse((await runCli(['event', 'sr-cli-reset', '--json'], env)).stdout)).toMatchObject({
      event: { id: 'sr-cli-reset' },
    });
  });

  it('an unknown event is a 404 with a clear message and the API code, exit 1', async () => {
    const r = await runCli(['event', 'no-such-event'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`not found: /api/events/no-such-event at ${api.fresh.url}`);
    const j = await runCli(['event', 'no-such-event', '--json'], env);
    expect(JSON.parse(j.stdout)).toMatchObject({ error: { code: 'not_found', status: 404 } });
  });

  it('usage errors exit 1', async () => {
    expect((await runCli(['history', '--type', 'nope'], env)).code).toBe(1);
    expect((await runCli(['event'], env)).code).toBe(1);
    expect((await runCli(['frobnicate'], env)).code).toBe(1);
    const help = await runCli(['--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Exit codes: 0 answered, 2 unknown or stale, 1 error.');
  });

  it('with no API URL configured (no production host is built in), says how to set one: exit 1, no request', async () => {
    const r = await runCli([], {});
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no API URL configured');
    expect(r.stderr).toContain('RESET_STATUS_API_URL');
  });
});

describe('reset-status statusline', () => {
  it('two calls within 60 s cost one request; a fresh cache folder asks again', async () => {
    const proxy = await startProxy(api.fresh.url);
    try {
      const e = { ...env, RESET_STATUS_API_URL: proxy.url, RESET_STATUS_CACHE_DIR: await tmpCache() };
      const a = await runCli(['statusline'], e);
      const b = await runCli(['statusline'], e);
      expect([a.stdout, b.stdout]).toEqual(['codex ↺ today\n', 'codex ↺ today\n']);
      expect([a.code, b.code]).toEqual([0, 0]);
      expect(proxy.requests).toEqual(['/api/latest']);
      await runCli(['statusline'], { ...e, RESET_STATUS_CACHE_DIR: await tmpCache() });
      expect(proxy.requests).toHaveLength(2);
    } finally {
      await proxy.close();
    }
  });

  it('prints ? when unknown (exit 2) or unreachable (exit 1)', async () => {
    const stale = await runCli(['statusline'], {
      ...env,
      RESET_STATUS_API_URL: api.edgeStale.url,
      RESET_STATUS_CACHE_DIR: await tmpCache(),
    });
    expect([stale.stdout, stale.code]).toEqual(['?\n', 2]);
    const down = await runCli(['statusline'], {
      ...env,
      RESET_STATUS_API_URL: await downUrl(),
      RESET_STATUS_CACHE_DIR: await tmpCache(),
    });
    expect([down.stdout, down.code]).toEqual(['?\n', 1]);
  });
});

describe('reset-status watch', () => {
  it('polls no faster than the response’s max-age, conditionally, and prints only changes', async () => {
    const proxy = await startProxy(api.fresh.url);
    proxy.maxAge = 1; // the API says 30 s; a 1 s max-age lets the test run 3 polls quickly
    try {
      const started = Date.now();
      const poll = runCli(['watch', '--interval', '0', '--max-polls', '4', '--json'], {
        ...env,
        RESET_STATUS_API_URL: proxy.url,
      });
      // After the second poll the answer changes: the same API past its stale_after.
      await new Promise((r) => setTimeout(r, 1_500));
      proxy.target = api.edgeStale.url;
      const r = await poll;
      const lines = r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as { answer: string });
      expect(lines.map((l) => l.answer)).toEqual(['yes', 'unknown']);
      expect(proxy.requests).toHaveLength(4);
      expect(Date.now() - started).toBeGreaterThanOrEqual(3_000); // three waits of the max-age
      expect(r.code).toBe(2);
    } finally {
      await proxy.close();
    }
  });
});
