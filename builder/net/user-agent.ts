// The one User-Agent every request to a source or a notification channel carries. Reddit's API rules ask for `<platform>:<app id>:<version> (by
// /u/<user>)` and refuse empty or generic agents; the other sources only need a descriptive one, so every request uses
// Reddit's form: it is descriptive everywhere. By default it names the repository the workflow runs in (GitHub Actions
// sets GITHUB_REPOSITORY), never a placeholder; a local build says so.
import { ConfigError } from '../errors.ts';

export const APP_VERSION = '0.1.0';
export const LOCAL_USER_AGENT = `node:reset-status-api:v${APP_VERSION} (local build)`;

const REPOSITORY = /^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/;
const REDDIT_USER = /^[A-Za-z0-9_-]{3,20}$/;
/** Printable ASCII only: a header value with a control character or a non-ASCII byte is refused by HTTP clients. */
const HEADER_SAFE = /^[\x20-\x7e]{1,256}$/;

/**
 * RESET_USER_AGENT, when set, is sent as it is (printable ASCII, at most 256 characters). Otherwise
 * `node:reset-status-api:v0.1.0 (by /u/<RESET_REDDIT_USER>; +<GITHUB_SERVER_URL>/<GITHUB_REPOSITORY>)`, each part present
 * when its variable is set, or `(local build)` when neither is. Throws ConfigError naming the variable on a bad value.
 */
export function userAgentFromEnv(env: Readonly<Record<string, string | undefined>>): string {
  /** The variable, trimmed, when set and not blank; a value that breaks `rule` stops the build. */
  const read = (variable: string, rule: (v: string) => boolean, must: string): string | undefined => {
    const v = env[variable]?.trim();
    if (v && !rule(v)) throw new ConfigError('net/user-agent', `${variable} must ${must}`);
    return v || undefined;
  };
  const explicit = read('RESET_USER_AGENT', (v) => HEADER_SAFE.test(v), 'be printable ASCII, at most 256 characters');
  if (explicit) return explicit;
  const user = read(
    'RESET_REDDIT_USER',
    (v) => REDDIT_USER.test(v),
    'be a Reddit user name (3-20 letters, digits, _ or -), without /u/',
  );
  const repo = read('GITHUB_REPOSITORY', (v) => REPOSITORY.test(v), 'be owner/name');
  const isHttp = (v: string) => ['http:', 'https:'].includes(URL.parse(v)?.protocol ?? '');
  const server = repo && read('GITHUB_SERVER_URL', isHttp, 'be an http(s) URL');
  const parts = [user && `by /u/${user}`, repo && `+${server ? new URL(server).origin : 'https://github.com'}/${repo}`];
  const known = parts.filter(Boolean);
  return known.length === 0 ? LOCAL_USER_AGENT : `node:reset-status-api:v${APP_VERSION} (${known.join('; ')})`;
}
