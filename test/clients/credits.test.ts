// What a client shows of the API's `meta.credits`: everything from the API is hostile until checked (creditsOf).
import { describe, expect, it } from 'vitest';
import { creditLine, creditsOf } from '../../clients/src/client.ts';

const doc = (credits: unknown) => ({ meta: { credits } });
const TIMELINE = { name: 'codex-reset.com', url: 'https://codex-reset.com/', notice: 'Data: codex-reset.com' };

describe('credits a client shows', () => {
  it('shows each credit as the source words it, with its link, once', () => {
    expect(creditsOf([doc([TIMELINE]), doc([TIMELINE])])).toEqual([TIMELINE]);
    expect(creditLine(TIMELINE)).toBe('Data: codex-reset.com (https://codex-reset.com/)');
    // An older API without a notice: "Data: <name>".
    expect(creditsOf([doc([{ name: 'codex-resets.com', url: 'https://codex-resets.com/' }])])[0]!.notice).toBe(
      'Data: codex-resets.com',
    );
  });

  it('refuses links that are not http(s), strips unprintable characters, caps lengths and count', () => {
    const hostile = [
      { name: 'x', url: 'javascript:alert(1)', notice: 'click' },
      { name: 'x', url: 'file:///etc/passwd' },
      { name: 'a'.repeat(101), url: 'https://long.example/' },
      { name: 'bidi', url: 'https://bidi.example/', notice: 'Data: \u202eevil\u001b[31m' },
      ...Array.from({ length: 20 }, (_, i) => ({ name: `n${i}`, url: `https://n${i}.example/` })),
      'not an object',
      null,
    ];
    const shown = creditsOf([doc(hostile), null, 'text', { meta: { credits: 'no' } }]);
    expect(shown).toHaveLength(5);
    expect(shown.every((c) => /^https:\/\//.test(c.url))).toBe(true);
    expect(shown[0]).toEqual({ name: 'bidi', url: 'https://bidi.example/', notice: 'Data: evil[31m' });
  });
});
