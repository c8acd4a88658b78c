import { describe, expect, it } from 'vitest';
import { DEFAULT_SIGNAL_FEEDS, DEFAULT_STATUS_PAGE_URL, DEFAULT_UPSTREAM_URL, disabledSourcesFromEnv, sourceConfigsFromEnv } from '../../builder/sources/config.ts';

describe('sourceConfigsFromEnv', () => {
  it('uses the documented defaults when nothing is set', () => {
    expect(sourceConfigsFromEnv({})).toEqual([
      { id: 'status-page', kind: 'status_page', url: DEFAULT_STATUS_PAGE_URL },
      { id: 'reset-tracker', kind: 'reset_tracker', url: DEFAULT_UPSTREAM_URL },
      { id: 'tracker-status', kind: 'tracker_status', url: 'https://codex-resets.com/api/v1/status' },
      { id: 'feed-1', kind: 'signal_feed', url: DEFAULT_SIGNAL_FEEDS[0] },
    ]);
    expect(disabledSourcesFromEnv({})).toEqual([]);
  });

  it('disables a source whose variable is set to an empty or blank string', () => {
    const env = { RESET_STATUS_PAGE_URL: '', RESET_UPSTREAM_URL: '  ', RESET_SIGNAL_FEEDS: '' };
    expect(sourceConfigsFromEnv(env)).toEqual([]);
    expect(disabledSourcesFromEnv(env)).toEqual([
      { id: 'status-page', kind: 'status_page', variable: 'RESET_STATUS_PAGE_URL' },
      { id: 'reset-tracker', kind: 'reset_tracker', variable: 'RESET_UPSTREAM_URL' },
      { id: 'tracker-status', kind: 'tracker_status', variable: 'RESET_UPSTREAM_STATUS_URL' },
      { id: 'feed-1', kind: 'signal_feed', variable: 'RESET_SIGNAL_FEEDS' },
    ]);
  });

  it('reads a comma-separated feed list, ignoring blanks and duplicates', () => {
    const configs = sourceConfigsFromEnv({
      RESET_STATUS_PAGE_URL: 'http://127.0.0.1:8080/summary.json',
      RESET_SIGNAL_FEEDS: ' https://a.example.test/feed.xml , ,https://b.example.test/feed.json,https://a.example.test/feed.xml',
    });
    expect(configs).toEqual([
      { id: 'status-page', kind: 'status_page', url: 'http://127.0.0.1:8080/summary.json' },
      { id: 'reset-tracker', kind: 'reset_tracker', url: DEFAULT_UPSTREAM_URL },
      { id: 'tracker-status', kind: 'tracker_status', url: 'https://codex-resets.com/api/v1/status' },
      { id: 'feed-1', kind: 'signal_feed', url: 'https://a.example.test/feed.xml' },
      { id: 'feed-2', kind: 'signal_feed', url: 'https://b.example.test/feed.json' },
    ]);
  });

  it('rejects non-http(s) and malformed URLs, naming the variable', () => {
    expect(() => sourceConfigsFromEnv({ RESET_UPSTREAM_URL: 'file:///etc/passwd' })).toThrow(/\[sources\/config\] RESET_UPSTREAM_URL must be an http\(s\) URL/);
    expect(() => sourceConfigsFromEnv({ RESET_STATUS_PAGE_URL: 'status.example.test' })).toThrow(/RESET_STATUS_PAGE_URL is not a valid URL/);
    expect(() => sourceConfigsFromEnv({ RESET_SIGNAL_FEEDS: 'https://ok.example.test/, ftp://x.example.test/' })).toThrow(/RESET_SIGNAL_FEEDS must be an http\(s\) URL/);
  });
});
