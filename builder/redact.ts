// The one way a URL given to this program (a source, a notification channel, a redirect target) is written anywhere:
// a log line, an error message, state, a source check, a document. Any part after the host can be a secret: path
// segments (Discord `/api/webhooks/ID/TOKEN`, Slack `/services/T/B/SECRET`, a feed's private path), path parameters
// (`;jsessionid=`), query names and values (`?token=`), the fragment; so can the userinfo. Only the scheme and the
// host (with a non-default port, which names no secret and tells two local sources apart) are ever shown.
import { urlOrigin } from './contract.ts';

/** `https://user:pass@host:8443/p;jsessionid=x?token=abc#f` → `https://host:8443/…`; anything else → `(redacted)`. */
export function redactUrl(raw: string): string {
  // Nothing of an unparseable value is shown: it may be the secret itself, mistyped.
  const origin = urlOrigin(raw);
  return origin === null ? '(redacted)' : `${origin}/…`;
}

/** `text` with every http(s) URL in it redacted (a stack's `file:` paths stay): for messages from libraries that may quote a URL. */
export const redactUrlsIn = (text: string): string => text.replace(/\bhttps?:\/\/[^\s"'<>`]+/gi, (m) => redactUrl(m));
