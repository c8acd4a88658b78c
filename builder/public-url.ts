// The public URLs a build writes into its documents, from the environment, by one explicit rule. Feeds, the calendar
// and notifications need absolute links; the only safe default for them is the local preview, and that default must
// never leave the machine: a loopback link in a published feed is a broken link for every reader, and nothing would
// flag it. So a build that publishes (any target but the local dist/) fails closed before it touches state or sink.
import { DEFAULT_PUBLIC_URL } from './contract.ts';
import { ConfigError } from './errors.ts';

export interface PublicUrls {
  /** The absolute base of every link in feeds, the calendar and notifications; no trailing slash. */
  publicUrl: string;
  /** The OpenAPI document's `servers` URL; absent: the renderer's default `/`, the origin serving it. */
  serverUrl?: string;
  /** The OpenAPI document's `info.contact.url`; absent: omitted. */
  contactUrl?: string;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Hosts that only ever mean "this machine": never a reader's way to the API. */
// (URL has already normalised `127.1`, `0x7f000001` and `[::ffff:127.0.0.1]` to these spellings.)
const LOOPBACK_HOST =
  /^(localhost|.+\.localhost|127(\.\d{1,3}){3}|0\.0\.0\.0|\[::1?\]|\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\])\.?$/i;
/** Longest value quoted back in an error: enough to recognise it, never a wall of text in the log. */
const QUOTED_MAX_CHARS = 120;
const ABSOLUTE = 'an absolute http(s) URL without credentials, query or fragment';

/** The value as an error may show it: userinfo and query (where a secret would sit) masked, length capped. */
function quote(value: string): string {
  const masked = value.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1***@').replace(/\?.*$/s, '?***');
  return JSON.stringify(masked.length > QUOTED_MAX_CHARS ? masked.slice(0, QUOTED_MAX_CHARS) + '…' : masked);
}

/** An absolute http(s) URL with a host, no credentials, query, fragment or markup characters; null when it is not one. */
function parseBase(value: string): URL | null {
  const u = URL.parse(value);
  // `new URL` repairs `https:/x` and `https:x` into `https://x/`: only what was written absolute counts. It is written
  // into XML (Atom), HTML and iCalendar as it is: no character any of them would read as markup.
  if (u === null || !/^https?:\/\/[^/?#\s]/i.test(value) || /[\s?#&<>"'`\\]/.test(value)) return null;
  return u.username === '' && u.password === '' ? u : null;
}

/**
 * The public URLs of a build for `target`, or the ConfigError (exit 2) that names the variable. Unset or empty
 * RESET_PUBLIC_BASE_URL is the local preview's DEFAULT_PUBLIC_URL for a local build and an error for every publishing
 * one; a set value must be an absolute http(s) URL (https and not loopback when publishing). RESET_CONTACT_URL, when
 * set, must be an absolute http(s) URL.
 */
export function requirePublicUrls(env: Env, target: 'local' | 's3'): PublicUrls {
  const fail = (error: string): never => {
    throw new ConfigError('config/public-url', error);
  };
  const publishing = target !== 'local';
  const wanted = publishing
    ? `RESET_PUBLIC_BASE_URL must be the absolute https:// URL the API is served from (e.g. https://api.example.org) for --target ${target}: feeds, the calendar and notifications link to it, and a build that publishes never falls back to the local preview's ${DEFAULT_PUBLIC_URL}`
    : `RESET_PUBLIC_BASE_URL must be ${ABSOLUTE} (e.g. https://api.example.org)`;
  const value = env.RESET_PUBLIC_BASE_URL || undefined;
  const urls: PublicUrls = { publicUrl: DEFAULT_PUBLIC_URL };
  if (value === undefined && publishing)
    fail(`${wanted}; it is ${env.RESET_PUBLIC_BASE_URL === '' ? 'empty' : 'not set'}`);
  if (value !== undefined) {
    const got = `${wanted}; got ${quote(value)}`;
    const u = parseBase(value) ?? fail(got);
    if (publishing && u.protocol !== 'https:') fail(`${got}, which is not https`);
    if (publishing && LOOPBACK_HOST.test(u.hostname)) fail(`${got}, a loopback address no reader can reach`);
    urls.publicUrl = urls.serverUrl = value.replace(/\/+$/, '');
  }
  const contact = env.RESET_CONTACT_URL || undefined;
  if (contact !== undefined && parseBase(contact) === null)
    fail(`RESET_CONTACT_URL must be ${ABSOLUTE} (the OpenAPI info.contact.url); got ${quote(contact)}`);
  if (contact !== undefined) urls.contactUrl = contact;
  return urls;
}
