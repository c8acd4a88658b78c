// The page's Content-Security-Policy, in a module without JSX so that production's response headers policy
// (infra/lib/edge.ts) sends the same policy the page's meta tag carries.
import { createHash } from 'node:crypto';
import { PAGE_SCRIPT } from './page-script.ts';
import { PAGE_CSS } from './page-style.ts';

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * Nothing from anywhere but the page's own inline script and style (by hash) and fetches to its own origin; production
 * sends it with `frame-ancestors 'none'` added (PAGE_CSP_HEADER: a meta tag cannot carry that).
 */
export const PAGE_CSP = [
  "default-src 'none'",
  `script-src ${sha256(PAGE_SCRIPT)}`,
  `style-src ${sha256(PAGE_CSS)}`,
  "connect-src 'self'",
  'img-src data:',
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

export const PAGE_CSP_HEADER = `${PAGE_CSP}; frame-ancestors 'none'`;
