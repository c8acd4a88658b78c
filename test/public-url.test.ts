// The public URL rule (builder/public-url.ts): a local build may fall back to the preview's loopback address, a
// publishing one never. The end-to-end refusal against real S3 is test/s3/public-url.test.ts.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_PUBLIC_URL } from '../builder/contract.ts';
import { ConfigError, messageOf } from '../builder/errors.ts';
import { main, type Io } from '../builder/main.ts';
import { requirePublicUrls } from '../builder/public-url.ts';
import { DATA_DIR } from './helpers/build.ts';

/** What `f` throws. */
function errorOf(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  throw new Error('did not throw');
}

describe('requirePublicUrls', () => {
  it('gives a local build the preview address when RESET_PUBLIC_BASE_URL is unset or empty, and no OpenAPI server', () => {
    expect(DEFAULT_PUBLIC_URL).toBe('http://127.0.0.1:8080');
    expect(requirePublicUrls({}, 'local')).toEqual({ publicUrl: DEFAULT_PUBLIC_URL });
    expect(requirePublicUrls({ RESET_PUBLIC_BASE_URL: '' }, 'local')).toEqual({ publicUrl: DEFAULT_PUBLIC_URL });
  });

  it('accepts an http(s) base for a local build, trailing slashes dropped, and uses it as the OpenAPI server', () => {
    expect(requirePublicUrls({ RESET_PUBLIC_BASE_URL: 'http://127.0.0.1:9000/' }, 'local')).toEqual({
      publicUrl: 'http://127.0.0.1:9000',
      serverUrl: 'http://127.0.0.1:9000',
    });
    expect(
      requirePublicUrls(
        { RESET_PUBLIC_BASE_URL: 'https://example.org/status//', RESET_CONTACT_URL: 'https://example.org/issues' },
        's3',
      ),
    ).toEqual({
      publicUrl: 'https://example.org/status',
      serverUrl: 'https://example.org/status',
      contactUrl: 'https://example.org/issues',
    });
  });

  it.each([
    [undefined, /it is not set/],
    ['', /it is empty/],
    ['http://api.example.org', /which is not https/],
    ['/api', /got "\/api"/],
    ['api.example.org', /got "api.example.org"/],
    ['https:/api.example.org', /got "https:\/api.example.org"/],
    ['ftp://api.example.org', /got "ftp:/],
    ['https://api.example.org/?x=1', /got "https:\/\/api.example.org\/\?\*\*\*"/],
    ['https://api.example.org/#top', /got/],
    ['https://user:secret@api.example.org', /got "https:\/\/\*\*\*@api.example.org"/],
    ['https://api example.org', /got/],
    // written into Atom, HTML and iCalendar as it is: no markup characters
    ['https://api.example.org/a&b', /got/],
    ['https://api.example.org/"x"', /got/],
    ['https://localhost', /loopback/],
    ['https://app.localhost:8443/', /loopback/],
    ['https://127.0.0.1:8080', /loopback/],
    ['https://127.1', /loopback/],
    ['https://[::1]/', /loopback/],
    ['https://[::ffff:127.0.0.1]/', /loopback/],
    ['https://0.0.0.0', /loopback/],
  ])('refuses RESET_PUBLIC_BASE_URL=%j for a publishing build', (value, message) => {
    const error = messageOf(
      errorOf(() => requirePublicUrls(value === undefined ? {} : { RESET_PUBLIC_BASE_URL: value }, 's3')),
    );
    expect(error).toMatch(/^\[config\/public-url\] RESET_PUBLIC_BASE_URL must be the absolute https:\/\/ URL/);
    expect(error).toMatch(message);
    expect(error).not.toContain('secret');
  });

  it('refuses a malformed value in a local build too, and a malformed RESET_CONTACT_URL anywhere', () => {
    for (const bad of ['/api', 'api.example.org', 'https://api.example.org/?x=1']) {
      expect(() => requirePublicUrls({ RESET_PUBLIC_BASE_URL: bad }, 'local'), bad).toThrow(ConfigError);
    }
    for (const target of ['local', 's3'] as const) {
      const env = { RESET_PUBLIC_BASE_URL: 'https://api.example.org', RESET_CONTACT_URL: 'mail me' };
      expect(() => requirePublicUrls(env, target)).toThrow(
        /^\[config\/public-url\] RESET_CONTACT_URL must be an absolute http\(s\) URL/,
      );
    }
  });

  it('throws a ConfigError (exit 2)', () => {
    expect(() => requirePublicUrls({}, 's3')).toThrow(ConfigError);
    expect(() => requirePublicUrls({}, 's3')).toThrow(/\[config\/public-url\] RESET_PUBLIC_BASE_URL/);
  });
});

describe('a local build', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  const io = (): Io & { errors: string[] } => {
    const errors: string[] = [];
    return { now: () => new Date(), out: () => {}, err: (l) => void errors.push(l), errors };
  };
  const args = async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'rsa-public-url-'));
    dirs.push(root);
    return {
      root,
      argv: [
        '--now',
        '2026-11-21T12:00:00Z',
        '--data-dir',
        DATA_DIR,
        '--out',
        path.join(root, 'dist'),
        '--state-dir',
        path.join(root, 'state'),
      ],
    };
  };
  const NO_SOURCES = {
    RESET_STATUS_PAGE_URL: '',
    RESET_UPSTREAM_URL: '',
    RESET_TIMELINE_URL: '',
    RESET_POST_EMBED_URL: '',
    RESET_SIGNAL_FEEDS: '',
  };

  it('still links its feeds and calendar to the preview on the loopback when RESET_PUBLIC_BASE_URL is unset', async () => {
    const { root, argv } = await args();
    expect(await main(argv, NO_SOURCES, io())).toBe(0);
    for (const name of ['feed.atom', 'feed.json', 'calendar.ics']) {
      expect(await readFile(path.join(root, 'dist', 'api', 'de', name), 'utf8'), name).toContain(
        `${DEFAULT_PUBLIC_URL}/de/#event-`,
      );
    }
    const openapi = JSON.parse(await readFile(path.join(root, 'dist', 'api', 'openapi.json'), 'utf8')) as {
      servers: { url: string }[];
    };
    expect(openapi.servers[0]?.url).toBe('/');
  });

  it('exits 2 on a malformed RESET_PUBLIC_BASE_URL and writes nothing', async () => {
    const { root, argv } = await args();
    const out = io();
    expect(await main(argv, { ...NO_SOURCES, RESET_PUBLIC_BASE_URL: 'api.example.org' }, out)).toBe(2);
    expect(out.errors.join('\n')).toMatch(/RESET_PUBLIC_BASE_URL must be an absolute http\(s\) URL/);
    await expect(readFile(path.join(root, 'state', 'state.json'))).rejects.toThrow(/ENOENT/);
    await expect(readFile(path.join(root, 'dist', 'api', 'en', 'latest.json'))).rejects.toThrow(/ENOENT/);
  });
});
