// One term per concept per language: locales/<lang>/glossary.json names the term every string of that language uses
// for a concept (Korean 리셋 for "reset", never 초기화) and the alternatives it must not use.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LANGS } from '../../builder/contract.ts';
import { NAMESPACES, RESOURCES } from '../../builder/render/i18n.ts';

const GlossarySchema = z.strictObject({
  _about: z.string(),
  concepts: z.record(
    z.string(),
    z.strictObject({ term: z.string().min(1), forbidden: z.array(z.string().min(1)).min(1) }),
  ),
});

const glossary = (lang: string) =>
  GlossarySchema.parse(
    JSON.parse(readFileSync(new URL(`../../locales/${lang}/glossary.json`, import.meta.url), 'utf8')),
  );

/** Every string of a language, keyed `ns.json key`. */
function strings(lang: (typeof LANGS)[number]): [string, string][] {
  const out: [string, string][] = [];
  const walk = (ns: string, v: unknown, key: string): void => {
    if (typeof v === 'string') out.push([`${lang}/${ns}.json ${key}`, v]);
    else if (v !== null && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) walk(ns, x, key ? `${key}.${k}` : k);
  };
  for (const ns of NAMESPACES) walk(ns, RESOURCES[lang][ns], '');
  return out;
}

describe('the glossary', () => {
  it('names the same concepts in every language', () => {
    const concepts = Object.keys(glossary('en').concepts).sort();
    expect(concepts).toEqual(expect.arrayContaining(['reset', 'global', 'banked']));
    for (const lang of LANGS) expect(Object.keys(glossary(lang).concepts).sort(), lang).toEqual(concepts);
  });

  for (const lang of LANGS) {
    it(`${lang}: every string uses the glossary's one term per concept, never a forbidden alternative`, () => {
      const all = strings(lang);
      expect(all.length).toBeGreaterThan(50);
      const found: string[] = [];
      for (const [concept, { term, forbidden }] of Object.entries(glossary(lang).concepts)) {
        expect(
          all.some(([, s]) => s.toLowerCase().includes(term.toLowerCase())),
          `${lang}: the term "${term}" (${concept}) is used somewhere`,
        ).toBe(true);
        for (const f of forbidden) {
          const re = new RegExp(f, 'iu');
          for (const [where, s] of all) {
            const m = re.exec(s);
            if (m) found.push(`${where}: "${m[0]}" for ${concept}; the glossary's term is "${term}"`);
          }
        }
      }
      expect(found).toEqual([]);
    });
  }
});
