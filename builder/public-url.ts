// The public URLs a build writes into its documents, from the environment, by one explicit rule. Feeds, the calendar
// and notifications need absolute links; the only safe default for them is the local preview, and that default must
// never leave the machine: a loopback link in a published feed is a broken link for every reader, and nothing would
// flag it. So a build that publishes (any target but the local dist/) fails closed before it touches state or sink.
import { DEFAULT_PUBLIC_URL } from './contract.ts';
import { ConfigError } from './errors.ts';

/** `local` writes dist/ for the preview; every other target publishes to readers. */
export type PublishTarget = 'local' | 's3';

export interface PublicUrls {
  /** The absolute base of every link in feeds, the calendar and notifications; no trailing slash. */
  publicUrl: string;
  /** The OpenAPI document's `servers` URL; absent: the renderer's default `/`, the origin serving it. */
  serverUrl?: string;
  /** The OpenAPI document's `info.contact.url`; absent: omitted. */
  contactUrl?: string;
}

export type PublicUrlsResult = { ok: true; urls: PublicUrls } | { ok: false; error: string };

/** Hosts that only ever mean "this machine": never a reader's way to the API. */
// (URL has already normalised `127.1`, `0x7f000001` and `[::ffff:127.0.0.1]` to these spellings.)
const LOOPBACK_HOST =
  /^(localhost|.+\.localhost|127(\.\d{1,3}){3}|0\.0\.0\.0|\[::1?\]|\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\])\.?$/i;
/** Longest value quoted back in an error: enough to recognise it, never a wall of text in the log. */
const QUOTED_MAX_CHARS = 120;

export function isPublishingTarget(target: PublishTarget): boolean {
  return target !== 'local';
}

/** The value as an error may show it: userinfo and query (where a secret would sit) masked, length capped. */
function quote(value: string): string {
  const masked = value.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1***@').replace(/\?.*$/s, '?***');
  return JSON.stringify(masked.length > QUOTED_MAX_CHARS ? masked.slice(0, QUOTED_MAX_CHARS) + '…' : masked);
}

/** An absolute http(s) URL with a host, no credentials, query, fragment or markup characters; null when it is not one. */
function parseBase(value: string): URL | null {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  // `new URL` repairs `https:/x` and `https:x` into `https://x/`: only what was written absolute counts.
  if (!/^https?:\/\/[^/?#\s]/i.test(value) || /\s/.test(value)) return null;
  // It is written into XML (Atom), HTML and iCalendar as it is: no character any of them would read as markup.
  if (/[&<>"'`\\]/.test(value)) return null;
  if (
    u.host === '' ||
    u.username !== '' ||
    u.password !== '' ||
    u.search !== '' ||
    u.hash !== '' ||
    value.includes('?') ||
    value.includes('#')
  )
    return null;
  return u;
}

function parseBaseUrl(
  value: string | undefined,
  target: PublishTarget,
): { ok: true; url: string | null } | { ok: false; error: string } {
  const publishing = isPublishingTarget(target);
  const wanted = publishing
    ? `RESET_PUBLIC_BASE_URL must be the absolute https:// URL the API is served from (e.g. https://api.example.org) for --target ${target}: feeds, the calendar and notifications link to it, and a build that publishes never falls back to the local preview's ${DEFAULT_PUBLIC_URL}`
    : 'RESET_PUBLIC_BASE_URL must be an absolute http(s) URL without credentials, query or fragment (e.g. https://api.example.org)';
  if (value === undefined || value === '') {
    return publishing
      ? { ok: false, error: `${wanted}; it is ${value === undefined ? 'not set' : 'empty'}` }
      : { ok: true, url: null };
  }
  const u = parseBase(value);
  if (u === null) return { ok: false, error: `${wanted}; got ${quote(value)}` };
  if (publishing && u.protocol !== 'https:')
    return { ok: false, error: `${wanted}; got ${quote(value)}, which is not https` };
  if (publishing && LOOPBACK_HOST.test(u.hostname)) {
    return { ok: false, error: `${wanted}; got ${quote(value)}, a loopback address no reader can reach` };
  }
  return { ok: true, url: value.replace(/\/+$/, '') };
}

/**
 * Pure: the public URLs of a build for `target`. Unset or empty RESET_PUBLIC_BASE_URL is the local preview's
 * DEFAULT_PUBLIC_URL for a local build and an error for every publishing one; a set value must be an absolute
 * http(s) URL (https and not loopback when publishing). RESET_CONTACT_URL, when set, must be an absolute http(s) URL.
 */
export function parsePublicUrls(
  env: Readonly<Record<string, string | undefined>>,
  target: PublishTarget,
): PublicUrlsResult {
  const base = parseBaseUrl(env.RESET_PUBLIC_BASE_URL, target);
  if (!base.ok) return base;
  const contact = env.RESET_CONTACT_URL;
  if (contact !== undefined && contact !== '' && parseBase(contact) === null) {
    return {
      ok: false,
      error: `RESET_CONTACT_URL must be an absolute http(s) URL without credentials, query or fragment (the OpenAPI info.contact.url); got ${quote(contact)}`,
    };
  }
  return {
    ok: true,
    urls: {
      publicUrl: base.url ?? DEFAULT_PUBLIC_URL,
      ...(base.url === null ? {} : { serverUrl: base.url }),
      ...(contact === undefined || contact === '' ? {} : { contactUrl: contact }),
    },
  };
}

/** parsePublicUrls, or the ConfigError (exit 2) that names the variable. */
export function requirePublicUrls(
  env: Readonly<Record<string, string | undefined>>,
  target: PublishTarget,
): PublicUrls {
  const r = parsePublicUrls(env, target);
  if (!r.ok) throw new ConfigError('config/public-url', r.error);
  return r.urls;
}
