// The parser check of the documented cloudfront-js-2.0 rules (scripts/cloudfront-rules.ts): the committed bundle keeps
// every rule, and copies of it with a refused construct planted in them fail, each on the rule it breaks. Node's V8
// would run most of these plants; CloudFront's engine is documented not to. Planted names start with `plant_`, which
// the minifier never emits, so a plant cannot collide with a name of the bundle.
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EDGE_OUTPUT } from '../../scripts/build-edge.ts';
import { MAX_FUNCTION_BYTES, checkCloudFrontFunction } from '../../scripts/cloudfront-rules.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let bundle: string;
let tmp: string;

beforeAll(async () => {
  bundle = await readFile(EDGE_OUTPUT, 'utf8');
  tmp = await mkdtemp(path.join(os.tmpdir(), 'cf-rules-'));
});
afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const rulesOf = (code: string) => [...new Set(checkCloudFrontFunction(code).map((v) => v.rule))].sort();
/** The bundle with `code` added at its end, as a later router change might add it. */
const append = (code: string) => bundle + code + '\n';

describe('the committed CloudFront Function', () => {
  it('keeps every documented rule: one top-level async handler holding every await, ES level, one import, 10 KB', () => {
    expect(checkCloudFrontFunction(bundle)).toEqual([]);
    expect(bundle).toMatch(/[;}\n]async function handler\([\w$]+\)\{/);
    expect(bundle.match(/\bawait\b/g)?.length).toBe(2);
  });

  it('passes `scripts/build-edge.ts --check`, the command .ci/run runs', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build-edge.ts', '--check'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/up to date/);
  });
});

describe('a copy with a refused construct planted in it', () => {
  it('fails on an async closure returned by a factory, the shape the handler used to have', () => {
    const planted = bundle
      .replace(/async function handler\(([\w$]+)\)\{/, 'function plant_make(k){return async function($1){')
      .replace(/\}\n$/, '}}\nvar handler=plant_make(1);\n');
    expect(planted).not.toBe(bundle);
    expect(rulesOf(planted)).toEqual(['async', 'await', 'handler']);
  });

  it.each([
    ['an async function expression', 'var plant_z=async function(e){return e};', ['async']],
    ['an async arrow', 'var plant_z=async e=>e;', ['async']],
    ['an async method', 'var plant_z={async m(){return 1}};', ['async', 'es-level']],
    ['an async function passed as an argument', '[1].map(async function(e){return e});', ['async']],
    ['a second top-level async function awaiting', 'async function plant_other(){return await 1}', ['async', 'await']],
    ['a top-level await', 'await 1;', ['await']],
  ])('fails on %s', (_label, code, rules) => {
    expect(rulesOf(append(code))).toEqual(rules);
  });

  it('fails on an await in a nested async function inside the handler', () => {
    const planted = bundle.replace(
      /async function handler\(([\w$]+)\)\{/,
      'async function handler($1){var plant_q=async function(){return await 1};',
    );
    expect(rulesOf(planted)).toEqual(['async', 'await']);
  });

  it.each([
    ['a class', 'class Plant{}'],
    ['destructuring', 'var {plant_a}={plant_a:1};'],
    ['spread', 'var plant_a=[...[1]];'],
    ['for-of', 'for(var plant_x of [1]){}'],
    ['optional chaining', 'var plant_a=({}).b?.c;'],
    ['nullish coalescing', 'var plant_a=null??1;'],
    ['a logical assignment', 'var plant_a;plant_a||=1;'],
    ['a default parameter', 'function plant_f(q=1){return q}'],
    ['a generator', 'function* plant_g(){yield 1}'],
    ['a BigInt', 'var plant_a=1n;'],
    ['a tagged template', 'var plant_a=String.raw`x`;'],
    ['an object shorthand', 'var plant_q=1,plant_o={plant_q};'],
    ['an optional catch binding', 'try{}catch{}'],
    ['a dotAll regular expression', 'var plant_r=/a/s;'],
    ['an export', 'export var plant_x=1;'],
  ])('fails on %s, outside the runtime ES level', (_label, code) => {
    expect(rulesOf(append(code))).toEqual(['es-level']);
  });

  it.each([
    [
      'an import of another module',
      (b: string) => b.replace(/\n(import [\w$]+ from 'cloudfront';)\n/, "\n$1\nimport fs from 'fs';\n"),
      ['import'],
    ],
    [
      'a named import of cloudfront',
      (b: string) => b.replace(/\nimport ([\w$]+) from 'cloudfront';\n/, "\nimport {$1} from 'cloudfront';\n"),
      ['es-level', 'import'],
    ],
    [
      'the runtime import after other code',
      (b: string) => b.replace(/\n(import [\w$]+ from 'cloudfront';)\n/, '\nvar plant_first=1;\n$1\n'),
      ['import'],
    ],
    ['require of fs', (b: string) => b + "var plant_fs=require('fs');\n", ['import']],
    ['a dynamic import', (b: string) => b + "import('fs');\n", ['es-level', 'import']],
  ])('fails on %s', (_label, plant, rules) => {
    expect(rulesOf(plant(bundle))).toEqual(rules);
  });

  it.each([
    ['eval', 'eval("1");', 'dynamic-code'],
    ['the Function constructor', 'var plant_f=new Function("return 1");', 'dynamic-code'],
    ['a timer', 'setTimeout(function(){},1);', 'timers'],
    ['process', 'var plant_p=process.env;', 'globals'],
    ['fetch', 'fetch("https://example.org/");', 'globals'],
    ['console.error', 'console.error("x");', 'console'],
    ['console.log with a comma', 'console.log("a","b");', 'console'],
  ])('fails on %s, a restricted feature', (_label, code, rule) => {
    expect(rulesOf(append(code))).toEqual([rule]);
  });

  it('fails without a top-level handler, or with one that takes no event', () => {
    expect(rulesOf(bundle.replace('async function handler(', 'async function handle('))).toEqual([
      'async',
      'await',
      'handler',
    ]);
    expect(rulesOf(bundle.replace(/async function handler\([\w$]+\)/, 'async function handler()'))).toEqual([
      'handler',
    ]);
  });

  it('fails over 10 KB, counting bytes, not characters', () => {
    const room = MAX_FUNCTION_BYTES - Buffer.byteLength(bundle, 'utf8');
    expect(rulesOf(append('//' + 'x'.repeat(room - 3)))).toEqual([]);
    expect(rulesOf(append('//' + 'x'.repeat(room - 2)))).toEqual(['size']);
    // Three bytes a character in UTF-8.
    expect(rulesOf(append('//' + '語'.repeat(Math.ceil(room / 3))))).toEqual(['size']);
  });

  it('accepts the later features the runtime lists: let/const, arrows, template literals, rest parameters, **', () => {
    expect(
      rulesOf(
        append(
          'const plant_sq=(...xs)=>xs.map(x=>x**2);let plant_t=`${plant_sq(1,2).join()}`;var plant_n=1_000;var plant_r=/(?<y>\\d{4})/y;',
        ),
      ),
    ).toEqual([]);
  });

  it('fails through the command line too, naming file, line and rule', async () => {
    const file = path.join(tmp, 'planted.js');
    await writeFile(file, append('var plant_z=async function(e){return await e};'));
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/cloudfront-rules.ts', file], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${file}:4:13: [async]`);
    expect(r.stderr).toContain('async arguments and closures are not supported');
  });
});
