// translator() remembers i18next's answers for the whole process (values.ts memoizeT): the answers must be exactly
// i18next's, what cannot be keyed safely must reach i18next every time, and the map must stay bounded.
import i18next, { type TFunction } from 'i18next';
import { describe, expect, it } from 'vitest';
import { LANGS } from '../../builder/model/schemas.ts';
import { NAMESPACES, RESOURCES, translator } from '../../builder/render/i18n.ts';
import { memoizeT, T_MEMO_MAX_ENTRIES } from '../../builder/render/values.ts';

/** A fresh i18next with the same resources and settings, never memoized: the reference answers. */
async function plainT(lang: (typeof LANGS)[number]): Promise<TFunction> {
  const i = i18next.createInstance();
  await i.init({ resources: RESOURCES, lng: lang, supportedLngs: [...LANGS], fallbackLng: false, ns: [...NAMESPACES], defaultNS: 'common', interpolation: { escapeValue: false }, returnNull: false });
  return i.getFixedT(lang);
}

/** A real `t` that counts how often it is asked. */
function counting(t: TFunction): { t: TFunction; calls: () => number } {
  let n = 0;
  const call = t as unknown as (k: unknown, o?: unknown) => unknown;
  return { t: ((k: unknown, o?: unknown) => (n++, call(k, o))) as unknown as TFunction, calls: () => n };
}

describe('translator memo', () => {
  it("answers every question as i18next's fixed t does, asked once or again, in every language (plurals, placeholders, another lng)", async () => {
    const questions: [string, Record<string, string | number>?][] = [
      ['page:title'],
      ['page:forecast.sample', { count: 1 }],
      ['page:forecast.sample', { count: 7 }],
      ['page:forecast.sample', { count: 1 }],
      ['common:title.global_reset', { reason: 'x' }],
      ['common:title.global_reset', { reason: 'y' }],
      ['page:today.checked', { relative: '{{relative}}' }],
      ['no:such.key'],
      ['common:reason.incident'],
      ['checks:ok', { count: 3 }],
      ['forecast:explanation.too_few', { sample: 2, min: 5 }],
      ['page:signals.more', { count: 2 }],
      ['page:title', { lng: 'ja' }],
    ];
    for (const lang of LANGS) {
      const plain = await plainT(lang);
      const t = translator(lang);
      expect(translator(lang)).toBe(t);
      for (const [key, opts] of [...questions, ...questions]) expect(t(key, opts as never), `${lang} ${key}`).toBe(plain(key, opts as never));
    }
  });

  it('asks i18next once per distinct flat question, every time for options it cannot key, and never keeps objects', async () => {
    const c = counting(await plainT('en'));
    const t = memoizeT(c.t);
    expect(memoizeT(t)).toBe(t);
    t('page:title');
    t('page:title');
    t('page:forecast.sample', { count: 2 });
    t('page:forecast.sample', { count: 2 });
    expect(c.calls()).toBe(2);
    // A nested value or a function could differ where JSON does not: not remembered.
    t('page:forecast.sample', { count: 2, extra: { a: 1 } } as never);
    t('page:forecast.sample', { count: 2, extra: { a: 1 } } as never);
    expect(c.calls()).toBe(4);
    // An object answer goes back to the caller fresh each time, so a caller's change cannot leak into the next one.
    const a = t('page:links', { returnObjects: true } as never) as unknown as Record<string, string>;
    const b = t('page:links', { returnObjects: true } as never) as unknown as Record<string, string>;
    expect(typeof a).toBe('object');
    expect(c.calls()).toBe(6);
    a.api = 'changed';
    expect(b.api).not.toBe('changed');
  });

  it('keeps at most T_MEMO_MAX_ENTRIES answers: past that it starts over', async () => {
    const c = counting(await plainT('en'));
    const t = memoizeT(c.t);
    t('page:title');
    for (let i = 1; i < T_MEMO_MAX_ENTRIES; i++) t('page:forecast.sample', { count: i });
    expect(c.calls()).toBe(T_MEMO_MAX_ENTRIES);
    t('page:title');
    expect(c.calls()).toBe(T_MEMO_MAX_ENTRIES);
    t('page:forecast.sample', { count: T_MEMO_MAX_ENTRIES });
    t('page:title');
    expect(c.calls()).toBe(T_MEMO_MAX_ENTRIES + 2);
  });
});
