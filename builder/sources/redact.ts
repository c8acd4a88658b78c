// The one way a source URL reaches a log line, an error message, state, a source check or a document. A source URL
// may come from a secret (credentials in its userinfo, a token in its query), so everything that could carry one is
// masked before the URL leaves this function: the userinfo, the value of every query parameter, the fragment.

export const REDACTED = '***';

/** `https://user:pass@host/p?token=abc&x=1#f` → `https://***@host/p?token=***&x=***`; unparseable → a placeholder. */
export function redactUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    // Nothing of an unparseable value is shown: it may be the secret itself, mistyped.
    return '(unparseable URL)';
  }
  const auth = u.username !== '' || u.password !== '' ? `${REDACTED}@` : '';
  const names = [...u.searchParams.keys()];
  const query = names.length === 0 ? (u.search === '?' ? '?' : '') : `?${names.map((n) => `${encodeURIComponent(n)}=${REDACTED}`).join('&')}`;
  const fragment = u.hash === '' ? '' : `#${REDACTED}`;
  // A URL without a host (`javascript:...`, `data:...`) is not a source: its scheme is all that is shown.
  if (u.host === '') return `${u.protocol}${REDACTED}`;
  return `${u.protocol}//${auth}${u.host}${u.pathname}${query}${fragment}`;
}
