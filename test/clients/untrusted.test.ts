// The `reset-status` bin (the committed bundle, in a child process) against a hostile API on loopback: escape
// sequences, controls and bidi overrides in every field it prints never reach the terminal, --json keeps the data
// (escaped) and parses, colour is only the CLI's own, and every read is bounded in size and time.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { terminalText } from '../../clients/src/format.ts';
import { startLoopback } from '../helpers/build.ts';
import { BIN, execFile, runCli, type Run } from './fixture.ts';
import { EVIL, startHostileApi, tainted, UNSAFE_CHARS, type HostileApi } from './hostile.ts';

let api: HostileApi;
let env: Record<string, string>;

beforeAll(async () => {
  api = await startHostileApi();
  env = { RESET_STATUS_API_URL: api.url };
});
afterAll(async () => api?.close());

/**
 * The output holds no byte a terminal acts on: no ESC, no BEL, no C1 (UTF-8 C2 80..9F) and no control or bidi
 * character. Text output has lost the sequences' payloads too; JSON keeps them as escaped data.
 */
function expectInert(out: string, json = false) {
  const bytes = Buffer.from(out, 'utf8');
  expect(bytes.includes(0x1b), 'ESC').toBe(false);
  expect(bytes.includes(0x07), 'BEL').toBe(false);
  for (let i = 0; i < bytes.length - 1; i++)
    if (bytes[i] === 0xc2 && bytes[i + 1]! >= 0x80 && bytes[i + 1]! <= 0x9f)
      expect.fail(`C1 control U+00${bytes[i + 1]!.toString(16)} at byte ${i}`);
  expect(out).not.toMatch(UNSAFE_CHARS);
  if (json) return;
  // The payloads of the sequences are gone with them, not left to be read as text.
  expect(out).not.toContain('cHduZWQ=');
  expect(out).not.toContain('PWNED-TITLE');
}

const ok = (r: Run) => {
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout;
};

describe('text from a hostile API never reaches the terminal as control sequences', () => {
  it('today: the reason, the last check, the announced summary and time', async () => {
    const out = ok(await runCli(['today'], env));
    expectInert(out);
    // What is text in those fields is still shown, and the line is one line.
    for (const name of ['explanation', 'last_check', 'upcoming_summary', 'scheduled_for'])
      expect(out).toContain(`${name}[`);
    expect(out).toContain('click'); // the hyperlink's text, without the link
    expect(out).toContain('RTL');
    expect(out.trimEnd().split('\n')).toHaveLength(1);
    expect(out).toMatch(/^Yes: Codex usage limits were reset today — /);
  });

  it('--json keeps every string as sent, escaped: valid JSON, no raw control or bidi character', async () => {
    const out = ok(await runCli(['today', '--json'], env));
    expectInert(out, true);
    const j = JSON.parse(out) as {
      reason: string;
      upcoming: { summary: string };
      document: { last_source_check_at: string };
    };
    expect(j.reason).toBe(`${tainted('explanation')} v0`);
    expect(j.upcoming.summary).toBe(tainted('upcoming_summary'));
    expect(j.document.last_source_check_at).toBe(tainted('last_check'));
    expect(out).toContain('\\u009b'); // the C1 CSI escaped as JSON does, not raw
    expect(out).toContain('\\u202e');
  });

  it('forecast: its explanation', async () => {
    const out = ok(await runCli(['forecast'], env));
    expectInert(out);
    expect(out).toContain('24h 12.5%, 48h 25.0%');
    expect(out).toContain('forecast_explanation[');
    const fj = ok(await runCli(['forecast', '--json'], env));
    expectInert(fj, true);
    const j = JSON.parse(fj) as { document: { explanation: string } };
    expect(j.document.explanation).toBe(tainted('forecast_explanation'));
  });

  it('history and event: the time, type, id and title of every line', async () => {
    const out = ok(await runCli(['history'], env));
    expectInert(out);
    const lines = out.trimEnd().split('\n');
    expect(lines).toHaveLength(2); // a CR, VT or FF in a field cannot start a line of its own
    expect(lines[0]).toMatch(/^occurred_at\[.*\] {2}global_reset {2}ev-1 {2}title\[/);
    expect(lines[1]).toMatch(/^occurred_at\[.*\] {2}global_reset.* {2}ev-2.* {2}title\[/);
    const hj = ok(await runCli(['history', '--json'], env));
    expectInert(hj, true);
    const h = JSON.parse(hj) as { events: { id: string; title: string }[] };
    expect(h.events.map((e) => e.title)).toEqual([tainted('title'), tainted('title')]);
    expect(h.events[1]!.id).toBe(`ev-2${EVIL}`);
    const e = ok(await runCli(['event', 'ev-1'], env));
    expectInert(e);
    expect(e).toContain('ev-1  title[');
  });

  it('an error quoting the API’s error document: cleaned, cut short, and valid JSON with --json', async () => {
    const r = await runCli(['event', 'missing'], env);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expectInert(r.stderr);
    expect(r.stderr).toContain('error_message[');
    expect(r.stderr.length).toBeLessThan(2_000); // the 100,000-character message is quoted in part
    const j = await runCli(['event', 'missing', '--json'], env);
    expectInert(j.stdout, true);
    expect(JSON.parse(j.stdout)).toMatchObject({ error: { code: `not_found${EVIL}`, status: 404 } });
  });

  it('a stale document whose stale_after is itself an attack: unknown, printed clean', async () => {
    api.staleAfter = tainted('stale_after');
    try {
      const r = await runCli(['today'], env);
      expect(r.code).toBe(2);
      expectInert(r.stdout);
      expect(r.stdout).toMatch(/^Unknown: .*the data is out of date \(stale_after stale_after\[/);
    } finally {
      api.staleAfter = null;
    }
  });

  it('watch: every changed answer printed clean, as text and as JSON', async () => {
    api.maxAge = 1;
    try {
      const before = api.requests.length;
      const text = runCli(['watch', '--interval', '0', '--max-polls', '2'], env);
      // The answer changes after the first poll.
      while (api.requests.length === before) await new Promise((r) => setTimeout(r, 20));
      api.version++;
      const r = await text;
      expectInert(r.stdout);
      expect(
        r.stdout
          .trimEnd()
          .split('\n')
          .map((l) => / v\d+ /.exec(l)?.[0]),
      ).toEqual([` v${api.version - 1} `, ` v${api.version} `]);
      const json = await runCli(['watch', '--interval', '0', '--max-polls', '1', '--json'], env);
      expectInert(json.stdout, true);
      expect((JSON.parse(json.stdout) as { reason: string }).reason).toBe(`${tainted('explanation')} v${api.version}`);
    } finally {
      api.maxAge = 30;
    }
  });

  it('on a TTY the only escape sequences are the CLI’s own colour around its own words', async () => {
    const out = await new Promise<string>((resolve) => {
      execFile(
        'script',
        ['-qec', `${process.execPath} ${BIN}`, '/dev/null'],
        { env: { PATH: process.env.PATH ?? '', TERM: 'xterm', LANG: 'C.UTF-8', RESET_STATUS_API_URL: api.url } },
        (_e, stdout) => resolve(stdout),
      );
    });
    expect(out).toContain('\x1b[32mYes: Codex usage limits were reset today\x1b[0m — explanation[');
    // The pseudo-terminal turns \n into \r\n; with that and the CLI's two sequences taken out, nothing is left.
    expectInert(out.replace('\x1b[32m', '').replace('\x1b[0m', '').replace(/\r\n/g, '\n'));
  });
});

describe('a hostile API cannot hang or exhaust the CLI', () => {
  it('a body that trickles forever is cut by --timeout, on every attempt', async () => {
    const drip = await startLoopback((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"reset":true,');
      const t = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(t));
    });
    try {
      const started = Date.now();
      const r = await runCli(['today', '--timeout', '400'], { RESET_STATUS_API_URL: drip.url });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('within 400 ms');
      expect(Date.now() - started).toBeLessThan(10_000); // 3 attempts of 400 ms and the backoff, not forever
    } finally {
      await drip.close();
    }
  });

  it('a body over the size cap without a length is refused', async () => {
    const big = await startLoopback((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      let sent = 0;
      const push = () => {
        while (sent < 16 && res.write(chunk)) sent++;
        if (sent < 16) res.once('drain', push);
        else res.end();
      };
      push();
    });
    try {
      const r = await runCli(['today'], { RESET_STATUS_API_URL: big.url });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('byte cap');
    } finally {
      await big.close();
    }
  });

  it('watch polls at most once a second even when the API says max-age=0', async () => {
    api.maxAge = 0;
    const before = api.requests.length;
    try {
      const started = Date.now();
      const r = await runCli(['watch', '--interval', '0', '--max-polls', '3'], env);
      expect(r.code).toBe(0);
      expect(api.requests.length - before).toBe(3);
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    } finally {
      api.maxAge = 30;
    }
  });

  it('watch with an absurd max-age waits (capped), without spinning or overflowing the timer', async () => {
    api.maxAge = 99_999_999_999; // over 2^31 ms: a timer given it would fire at once
    const before = api.requests.length;
    const child = spawn(process.execPath, [BIN, 'watch', '--interval', '0', '--max-polls', '5'], {
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', LANG: 'C', ...env },
    });
    try {
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      await new Promise((r) => setTimeout(r, 2_500));
      expect(api.requests.length - before).toBe(1);
      expect(child.exitCode).toBeNull(); // still waiting for its next poll
      expect(stderr).not.toContain('TimeoutOverflowWarning');
    } finally {
      child.kill();
      api.maxAge = 30;
    }
  });

  it('--interval is bounded', async () => {
    const r = await runCli(['watch', '--interval', '99999999999'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--interval wants a whole number from 0 to 3600');
  });
});

describe('the cleaning itself', () => {
  it('stays linear on text built to make a pattern backtrack (a body can hold 8 MiB of it)', () => {
    for (const unit of ['\x90', '\x1b]', '\x9b0', '\x1b[0;', '\x9d\x1b']) {
      const text = unit.repeat(Math.floor(2_000_000 / unit.length));
      const started = performance.now();
      const clean = terminalText(text);
      expect(performance.now() - started).toBeLessThan(5_000); // quadratic would take hours
      expect(clean).not.toMatch(UNSAFE_CHARS);
    }
  });
});
