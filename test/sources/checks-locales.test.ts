import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LANGS } from '../../builder/contract.ts';

const root = new URL('../../', import.meta.url);
const load = (lang: string) =>
  JSON.parse(readFileSync(new URL(`locales/${lang}/checks.json`, root), 'utf8')) as Record<string, string>;
const placeholders = (s: string) => [...s.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]).sort();

/** Every detail code the sources and fetcher can emit, read from their source text. */
function emittedCodes(): string[] {
  const codes = new Set<string>();
  const mine = [
    'budget.ts',
    'feed-xml.ts',
    'sanitize.ts',
    'fetcher.ts',
    'config.ts',
    'http-fetcher.ts',
    'index.ts',
    'post-embed.ts',
    'reset-timeline.ts',
    'reset-tracker.ts',
    'signal-feeds.ts',
    'status-page.ts',
    'status-incidents.ts',
    'tracker-status.ts',
  ];
  for (const f of readdirSync(new URL('builder/sources/', root)).filter((f) => mine.includes(f))) {
    const text = readFileSync(new URL(`builder/sources/${f}`, root), 'utf8');
    for (const m of text.matchAll(
      /code: '([a-z_]+)'|failure\(\s*[^,]+,\s*'([a-z_]+)'|(?:done|readDetail)\('([a-z_]+)'/g,
    ))
      codes.add((m[1] ?? m[2] ?? m[3])!);
  }
  return [...codes].sort();
}

describe('locales/*/checks.json', () => {
  const en = load('en');
  it.each(LANGS)('%s has exactly the English keys, every value translated with the same placeholders', (lang) => {
    const t = load(lang);
    expect(Object.keys(t).sort()).toEqual(Object.keys(en).sort());
    for (const [k, v] of Object.entries(t)) {
      expect(v.trim(), `${lang}.${k}`).not.toBe('');
      expect(placeholders(v), `${lang}.${k}`).toEqual(placeholders(en[k]!));
    }
  });

  it('has a message for every detail code the sources emit', () => {
    const codes = emittedCodes();
    expect(codes).toEqual(
      expect.arrayContaining([
        'ok',
        'timeout',
        'schema_mismatch',
        'page_cap_reached',
        'connection_refused',
        'rate_limited_wait',
      ]),
    );
    for (const code of codes) expect(en, code).toHaveProperty(code);
    for (const code of ['not_checked', 'disabled']) expect(en).toHaveProperty(code);
  });
});
