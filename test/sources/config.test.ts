import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SIGNAL_FEEDS,
  DEFAULT_STATUS_PAGE_URL,
  DEFAULT_RESET_TIMELINE_URL,
  DEFAULT_UPSTREAM_URL,
  disabledSourcesFromEnv,
  sourceConfigsFromEnv,
} from '../../builder/sources/config.ts';

describe('sourceConfigsFromEnv', () => {
  it('uses the documented defaults when nothing is set', () => {
    expect(sourceConfigsFromEnv({})).toEqual([
      { id: 'status-page', kind: 'status_page', url: DEFAULT_STATUS_PAGE_URL },
      // incident.io's own incident feed of the same page.
      {
        id: 'status-incidents',
        kind: 'status_incidents',
        url: 'https://status.openai.com/proxy/status.openai.com/incidents',
      },
      { id: 'reset-tracker', kind: 'reset_tracker', url: DEFAULT_UPSTREAM_URL },
      { id: 'tracker-status', kind: 'tracker_status', url: 'https://codex-resets.com/api/v1/status' },
      { id: 'reset-timeline', kind: 'reset_timeline', url: 'https://codex-reset.com/api/timeline' },
      { id: 'feed-1', kind: 'signal_feed', url: DEFAULT_SIGNAL_FEEDS[0] },
    ]);
    expect(DEFAULT_RESET_TIMELINE_URL).toBe('https://codex-reset.com/api/timeline');
    expect(disabledSourcesFromEnv({})).toEqual([]);
  });

  it('disables a source whose variable is set to an empty or blank string', () => {
    const env = {
      RESET_STATUS_PAGE_URL: '',
      RESET_UPSTREAM_URL: '  ',
      RESET_TIMELINE_URL: '',
      RESET_POST_EMBED_URL: '',
      RESET_SIGNAL_FEEDS: '',
    };
    expect(sourceConfigsFromEnv(env)).toEqual([]);
    expect(disabledSourcesFromEnv(env)).toEqual([
      { id: 'status-page', kind: 'status_page', variable: 'RESET_STATUS_PAGE_URL' },
      { id: 'status-incidents', kind: 'status_incidents', variable: 'RESET_STATUS_INCIDENTS_URL' },
      { id: 'reset-tracker', kind: 'reset_tracker', variable: 'RESET_UPSTREAM_URL' },
      { id: 'tracker-status', kind: 'tracker_status', variable: 'RESET_UPSTREAM_STATUS_URL' },
      { id: 'reset-timeline', kind: 'reset_timeline', variable: 'RESET_TIMELINE_URL' },
      { id: 'feed-1', kind: 'signal_feed', variable: 'RESET_SIGNAL_FEEDS' },
      { id: 'post-embed', kind: 'post_embed', variable: 'RESET_POST_EMBED_URL' },
    ]);
  });

  it('reads a comma-separated feed list, ignoring blanks and duplicates', () => {
    const configs = sourceConfigsFromEnv({
      RESET_STATUS_PAGE_URL: 'http://127.0.0.1:8080/summary.json',
      RESET_SIGNAL_FEEDS:
        ' https://a.example.test/feed.xml , ,https://b.example.test/feed.json,https://a.example.test/feed.xml',
    });
    expect(configs).toEqual([
      { id: 'status-page', kind: 'status_page', url: 'http://127.0.0.1:8080/summary.json' },
      { id: 'reset-tracker', kind: 'reset_tracker', url: DEFAULT_UPSTREAM_URL },
      { id: 'tracker-status', kind: 'tracker_status', url: 'https://codex-resets.com/api/v1/status' },
      { id: 'reset-timeline', kind: 'reset_timeline', url: DEFAULT_RESET_TIMELINE_URL },
      { id: 'feed-1', kind: 'signal_feed', url: 'https://a.example.test/feed.xml' },
      { id: 'feed-2', kind: 'signal_feed', url: 'https://b.example.test/feed.json' },
    ]);
  });

  it('rejects non-http(s) and malformed URLs, naming the variable', () => {
    expect(() => sourceConfigsFromEnv({ RESET_UPSTREAM_URL: 'file:///etc/passwd' })).toThrow(
      /\[sources\/config\] RESET_UPSTREAM_URL must be an http\(s\) URL/,
    );
    expect(() => sourceConfigsFromEnv({ RESET_STATUS_PAGE_URL: 'status.example.test' })).toThrow(
      /RESET_STATUS_PAGE_URL is not a valid URL/,
    );
    expect(() =>
      sourceConfigsFromEnv({ RESET_SIGNAL_FEEDS: 'https://ok.example.test/, ftp://x.example.test/' }),
    ).toThrow(/RESET_SIGNAL_FEEDS must be an http\(s\) URL/);
  });

  it('reads RESET_TIMELINE_URL on its own, not following the first tracker; empty disables it', () => {
    const timeline = (env: Record<string, string>) =>
      sourceConfigsFromEnv(env).find((c) => c.kind === 'reset_timeline');
    expect(timeline({ RESET_TIMELINE_URL: 'http://127.0.0.1:8080/api/timeline' })).toEqual({
      id: 'reset-timeline',
      kind: 'reset_timeline',
      url: 'http://127.0.0.1:8080/api/timeline',
    });
    expect(timeline({ RESET_UPSTREAM_URL: '' })?.url).toBe(DEFAULT_RESET_TIMELINE_URL);
    expect(timeline({ RESET_TIMELINE_URL: ' ' })).toBeUndefined();
    expect(disabledSourcesFromEnv({ RESET_TIMELINE_URL: '' })).toEqual([
      { id: 'reset-timeline', kind: 'reset_timeline', variable: 'RESET_TIMELINE_URL' },
    ]);
    expect(() => sourceConfigsFromEnv({ RESET_TIMELINE_URL: 'javascript:alert(1)' })).toThrow(
      /RESET_TIMELINE_URL must be an http\(s\) URL/,
    );
  });

  it('derives the incident feed from the status page address, or takes its own; empty disables it', () => {
    const incidents = (env: Record<string, string>) =>
      sourceConfigsFromEnv(env).find((c) => c.kind === 'status_incidents');
    // incident.io serves the feed at /proxy/<the page's host name>/incidents beside the summary's path.
    expect(incidents({ RESET_STATUS_PAGE_URL: 'http://127.0.0.1:8080/mirror/api/v2/summary.json?x=1' })).toEqual({
      id: 'status-incidents',
      kind: 'status_incidents',
      url: 'http://127.0.0.1:8080/mirror/proxy/127.0.0.1/incidents',
    });
    // A page address without the Statuspage summary path names no feed: off, and said so.
    expect(incidents({ RESET_STATUS_PAGE_URL: 'http://127.0.0.1:8080/summary.json' })).toBeUndefined();
    expect(
      disabledSourcesFromEnv({ RESET_STATUS_PAGE_URL: 'http://127.0.0.1:8080/summary.json' }).map((d) => d.id),
    ).toEqual(['status-incidents']);
    expect(incidents({ RESET_STATUS_INCIDENTS_URL: 'https://status.example.test/feed' })).toEqual({
      id: 'status-incidents',
      kind: 'status_incidents',
      url: 'https://status.example.test/feed',
    });
    expect(incidents({ RESET_STATUS_INCIDENTS_URL: '' })).toBeUndefined();
    expect(disabledSourcesFromEnv({ RESET_STATUS_INCIDENTS_URL: ' ' })).toEqual([
      { id: 'status-incidents', kind: 'status_incidents', variable: 'RESET_STATUS_INCIDENTS_URL' },
    ]);
    // The feed alone stays when the page is off only if it is configured itself.
    expect(
      incidents({ RESET_STATUS_PAGE_URL: '', RESET_STATUS_INCIDENTS_URL: 'https://status.example.test/feed' })?.url,
    ).toBe('https://status.example.test/feed');
    expect(() => sourceConfigsFromEnv({ RESET_STATUS_INCIDENTS_URL: 'javascript:alert(1)' })).toThrow(
      /RESET_STATUS_INCIDENTS_URL must be an http\(s\) URL/,
    );
  });

  it('reads RESET_STATUS_CODEX_COMPONENTS into both status sources, and refuses what is not a list of ids', () => {
    const status = (env: Record<string, string>) =>
      sourceConfigsFromEnv(env).filter((c) => c.kind === 'status_page' || c.kind === 'status_incidents');
    // Unset: the adapter's documented default list applies (nothing is added to the config).
    expect(status({}).map((c) => c.codexComponents)).toEqual([undefined, undefined]);
    expect(status({ RESET_STATUS_CODEX_COMPONENTS: ' 01AAA , ,01BBB,01AAA' }).map((c) => c.codexComponents)).toEqual([
      ['01AAA', '01BBB'],
      ['01AAA', '01BBB'],
    ]);
    // Empty: no ids, the name match alone.
    expect(status({ RESET_STATUS_CODEX_COMPONENTS: '' }).map((c) => c.codexComponents)).toEqual([[], []]);
    expect(
      sourceConfigsFromEnv({ RESET_STATUS_CODEX_COMPONENTS: '01AAA' })
        .filter((c) => c.codexComponents !== undefined)
        .map((c) => c.id),
    ).toEqual(['status-page', 'status-incidents']);
    expect(() => sourceConfigsFromEnv({ RESET_STATUS_CODEX_COMPONENTS: '01AAA, Codex Web' })).toThrow(
      /\[sources\/config\] RESET_STATUS_CODEX_COMPONENTS entry 2 is not a component id/,
    );
    expect(() => sourceConfigsFromEnv({ RESET_STATUS_CODEX_COMPONENTS: 'https://x.test/?token=s3cret' })).toThrow(
      /^(?!.*s3cret).*RESET_STATUS_CODEX_COMPONENTS entry 1/,
    );
    expect(() =>
      sourceConfigsFromEnv({ RESET_STATUS_CODEX_COMPONENTS: Array.from({ length: 101 }, (_, i) => `c${i}`).join(',') }),
    ).toThrow(/RESET_STATUS_CODEX_COMPONENTS lists 101 ids, more than 100/);
  });
});
