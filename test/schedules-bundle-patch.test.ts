// The schedule bundles patch one expression of ical-generator (scripts/build-schedules.ts ICAL_FOLD_PATCH): its line
// folding must stay the library's, octet for octet, for every kind of text a calendar can carry.
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import ical, { foldLines } from 'ical-generator';
import { z } from 'zod';
import { makeBadge } from 'badge-maker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduleBuildOptions } from '../scripts/build-schedules.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

type Lib = { foldLines: typeof foldLines; ical: typeof ical };

/** Lines that fold at, around and across the 75-octet limit in 1-, 2-, 3- and 4-octet characters, and broken UTF-16. */
const TEXTS: string[] = [
  '',
  'a'.repeat(74),
  'a'.repeat(75),
  'a'.repeat(300),
  'é'.repeat(80),
  'a' + 'é'.repeat(80),
  '한국어 '.repeat(40),
  '全員の利用上限がリセットされました'.repeat(6),
  '🙂'.repeat(40),
  'a' + '🙂'.repeat(40),
  'x'.repeat(73) + '🙂tail',
  'x'.repeat(74) + '한',
  // Lone surrogates: TextEncoder writes U+FFFD (3 octets) for each; so must the patch.
  'x'.repeat(72) + '\ud800' + 'y'.repeat(10),
  'x'.repeat(72) + '\udc00' + 'y'.repeat(10),
  '\ud83d'.repeat(30),
  'x'.repeat(73) + '\ud83d',
  'line one\r\n' + 'ü'.repeat(100) + '\r\nline three',
  // Around ICAL_SHORT_LINE_PATCH's fast path (74 octets, no surrogates) in 2-octet characters, and short lines with pairs.
  'é'.repeat(37),
  'a' + 'é'.repeat(37),
  'a'.repeat(73) + 'é',
  'SUMMARY:short\r\n' + 'é'.repeat(37) + '\r\n' + 'x'.repeat(74) + '\r\n' + 'x'.repeat(75),
  '🙂🙂🙂',
  'x'.repeat(60) + '🙂🙂🙂🙂',
];

/** Bundles `contents` (imports of one package) into test-output/ with the schedule bundles' plugins; returns the file and its text. */
async function bundleWithPatches(prefix: string, contents: string): Promise<{ work: string; out: string; source: string }> {
  await mkdir(path.join(ROOT, 'test-output'), { recursive: true });
  const work = await mkdtemp(path.join(ROOT, 'test-output', prefix));
  const out = path.join(work, 'bundle.mjs');
  await esbuild.build({
    absWorkingDir: ROOT,
    stdin: { contents, resolveDir: ROOT, loader: 'ts' },
    outfile: out,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    plugins: scheduleBuildOptions(work).plugins ?? [],
    banner: scheduleBuildOptions(work).banner ?? {},
    logLevel: 'silent',
  });
  return { work, out, source: await readFile(out, 'utf8') };
}

describe('the ical-generator patch in the schedule bundles', () => {
  let work: string;
  let patched: Lib;

  beforeAll(async () => {
    const b = await bundleWithPatches('ical-patch-', "export { default as ical, foldLines } from 'ical-generator';");
    work = b.work;
    const source = b.source;
    expect(source).not.toMatch(/new TextEncoder\(\)\.encode\(/);
    expect(source).toMatch(/udfff\]\/\.test\(\w+\)\s*&&\s*Buffer\.byteLength\(\w+,\s*"utf8"\)\s*<=\s*74\)\s*return/);
    patched = (await import(pathToFileURL(b.out).href)) as Lib;
  }, 60_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('folds every text exactly as the unpatched library does', () => {
    for (const text of TEXTS) expect(patched.foldLines(text), JSON.stringify(text.slice(0, 20))).toBe(foldLines(text));
  });

  it('writes the same calendar as the unpatched library for multilingual events', () => {
    const calendar = (lib: Lib['ical']) => {
      const cal = lib({ name: '사용 한도 초기화 · 利用上限', prodId: { company: 'reset-status-api', product: 'calendar', language: 'KO' } });
      for (const [i, text] of TEXTS.entries()) {
        cal.createEvent({ id: `e${i}@reset-status-api`, stamp: new Date(0), start: new Date(Date.UTC(2026, 10, 1 + i)), summary: text.slice(0, 90), description: text });
      }
      return cal.toString();
    };
    expect(calendar(patched.ical)).toBe(calendar(ical));
  });
});

// The bundles keep only zod's English messages (ZOD_LOCALES_PATCH): a failed parse must read exactly as the library's.
describe('the zod locales patch in the schedule bundles', () => {
  let work: string;
  let bundled: { z: typeof z };
  let source: string;

  beforeAll(async () => {
    const b = await bundleWithPatches('zod-locales-', "export { z } from 'zod';");
    work = b.work;
    source = b.source;
    bundled = (await import(pathToFileURL(b.out).href)) as { z: typeof z };
  }, 60_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('leaves the other locales out of the bundle', () => {
    expect(source).not.toContain('Ungültige Eingabe');
    expect(() => bundled.z.locales.de()).toThrow(/not in this bundle/);
  });

  it('reports every kind of issue in the same English as the unpatched library', () => {
    const schema = (lib: typeof z) =>
      lib.object({ id: lib.string().regex(/^[a-z]+$/), n: lib.number().int().min(1).max(9), kind: lib.enum(['a', 'b']), at: lib.iso.datetime(), tags: lib.array(lib.string()).max(1) }).strict();
    const inputs: unknown[] = [null, {}, { id: 'A1', n: 0.5, kind: 'c', at: 'yesterday', tags: ['x', 'y'], extra: 1 }, { id: 'ok', n: 99, kind: 'a', at: '2026-01-01T00:00:00Z', tags: [3] }];
    for (const input of inputs) {
      const messages = (lib: typeof z) => schema(lib).safeParse(input).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
      expect(messages(bundled.z), JSON.stringify(input)).toEqual(messages(z));
      expect(messages(z)?.length).toBeGreaterThan(0);
    }
  });
});

// The bundles build badge-maker's font width tables on first use (FONT_TABLES_PATCH): every badge style, each measuring
// in another of the four fonts, must come out as the unpatched library draws it.
describe('the font tables patch in the schedule bundles', () => {
  let work: string;
  let bundled: { makeBadge: typeof makeBadge };

  beforeAll(async () => {
    const b = await bundleWithPatches('font-tables-', "export { makeBadge } from 'badge-maker';");
    work = b.work;
    expect(b.source).toMatch(/get\s*"10px Verdana"\(\)/);
    bundled = (await import(pathToFileURL(b.out).href)) as { makeBadge: typeof makeBadge };
  }, 60_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('draws every style of badge as the unpatched library does, in every language', () => {
    const styles = ['flat', 'flat-square', 'plastic', 'for-the-badge', 'social'] as const;
    const texts: [string, string][] = [
      ['reset today', 'confirmed'],
      ['Zurücksetzung heute', 'keine bestätigte'],
      ['오늘 초기화', '확인됨'],
      ['本日のリセット', '不明'],
      ['今日重置', '已确认'],
      ['', 'W'.repeat(40)],
    ];
    for (const style of styles) {
      for (const [label, message] of texts) {
        const format = { label, message, color: 'lightgrey', style };
        expect(bundled.makeBadge(format), `${style} ${label}`).toBe(makeBadge(format));
      }
    }
  });
});
