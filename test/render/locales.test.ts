import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LANGS } from '../../builder/contract.ts';
import { NAMESPACES, RESOURCES } from '../../builder/render/i18n.ts';

type Tree = { [k: string]: string | Tree };
function flatten(t: Tree, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(t)) {
    if (typeof v === 'string') out[prefix + k] = v;
    else Object.assign(out, flatten(v, `${prefix}${k}.`));
  }
  return out;
}

/** Strings allowed to read the same in another language (codes, numbers and product names only). */
const SAME_AS_ENGLISH_OK = /^[\s\d%.,:;()\-–—/{}A-Z_]*(HTTP|JSON|URL|Codex|Brier)?[\s\d%.,:;()\-–—/{}a-zA-Z_]*$/;

describe('locales', () => {
  it('every namespace file on disk is loaded for every language', () => {
    for (const lang of LANGS) {
      // glossary.json is the terms the strings use (glossary.test.ts), not an i18next namespace.
      const files = readdirSync(new URL(`../../locales/${lang}/`, import.meta.url))
        .filter((f) => f.endsWith('.json') && f !== 'glossary.json')
        .map((f) => f.replace(/\.json$/, ''));
      expect(files.sort()).toEqual([...NAMESPACES].sort());
    }
  });

  for (const ns of NAMESPACES) {
    it(`${ns}: every key is present in all five languages, with the same placeholders`, () => {
      const en = flatten(RESOURCES.en[ns] as Tree);
      expect(Object.keys(en).length).toBeGreaterThan(0);
      for (const lang of LANGS) {
        const other = flatten(RESOURCES[lang][ns] as Tree);
        expect(Object.keys(other).sort(), `${lang}/${ns}.json keys`).toEqual(Object.keys(en).sort());
        for (const [k, v] of Object.entries(en)) {
          const ph = (s: string) => [...s.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();
          expect(ph(other[k]!), `${lang}/${ns}.json ${k} placeholders`).toEqual(ph(v));
          expect(other[k]!.trim(), `${lang}/${ns}.json ${k} is empty`).not.toBe('');
        }
      }
    });

    it(`${ns}: translations differ from English unless the string is only codes and placeholders`, () => {
      const en = flatten(RESOURCES.en[ns] as Tree);
      for (const lang of LANGS.filter((l) => l !== 'en')) {
        const other = flatten(RESOURCES[lang][ns] as Tree);
        for (const [k, v] of Object.entries(en)) {
          if (other[k] === v)
            expect(v.replace(/\{\{\w+\}\}/g, ''), `${lang}/${ns}.json ${k} is still English`).toMatch(
              SAME_AS_ENGLISH_OK,
            );
        }
      }
    });
  }

  it('locale files are plain JSON objects (no BOM, parseable)', () => {
    for (const lang of LANGS)
      for (const ns of NAMESPACES)
        expect(() =>
          JSON.parse(readFileSync(new URL(`../../locales/${lang}/${ns}.json`, import.meta.url), 'utf8')),
        ).not.toThrow();
  });
});
