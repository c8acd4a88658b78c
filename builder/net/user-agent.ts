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
  const explicit = env.RESET_USER_AGENT?.trim();
  if (explicit) {
    if (!HEADER_SAFE.test(explicit))
      throw new ConfigError('net/user-agent', 'RESET_USER_AGENT must be printable ASCII, at most 256 characters');
    return explicit;
  }
  const parts: string[] = [];
  const user = env.RESET_REDDIT_USER?.trim();
  if (user) {
    if (!REDDIT_USER.test(user))
      throw new ConfigError(
        'net/user-agent',
        'RESET_REDDIT_USER must be a Reddit user name (3-20 letters, digits, _ or -), without /u/',
      );
    parts.push(`by /u/${user}`);
  }
  const repo = env.GITHUB_REPOSITORY?.trim();
  if (repo) {
    if (!REPOSITORY.test(repo)) throw new ConfigError('net/user-agent', 'GITHUB_REPOSITORY must be owner/name');
    let server = 'https://github.com';
    if (env.GITHUB_SERVER_URL) {
      const u = URL.parse(env.GITHUB_SERVER_URL);
      if (u === null || (u.protocol !== 'https:' && u.protocol !== 'http:'))
        throw new ConfigError('net/user-agent', 'GITHUB_SERVER_URL must be an http(s) URL');
      server = u.origin;
    }
    parts.push(`+${server}/${repo}`);
  }
  return parts.length === 0 ? LOCAL_USER_AGENT : `node:reset-status-api:v${APP_VERSION} (${parts.join('; ')})`;
}
