// The operator's documents cannot drift from what they describe: the variables table of docs/deploy.md against the
// workflows (parsed with the yaml package), the README against the builder settings the workflows pass, the cost
// tables against scripts/costs.ts, and every `test/….test.ts` a tracked file cites against the files on disk.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { AWS_LINES, WORKER_LINES, renderCostTable, renderSources } from '../scripts/costs.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const WORKFLOW_DIR = path.join(ROOT, '.github/workflows');
const deploy = readFileSync(path.join(ROOT, 'docs/deploy.md'), 'utf8');
const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

type Kind = 'variable' | 'secret' | 'secret or variable';
interface Input {
  kind: Kind;
  files: string[];
}

/** Every string in a parsed YAML document (expressions live in strings: env values, `with:` inputs, `if:`). */
function strings(node: unknown): string[] {
  if (typeof node === 'string') return [node];
  if (Array.isArray(node)) return node.flatMap(strings);
  if (node !== null && typeof node === 'object') return Object.entries(node).flatMap(([k, v]) => [k, ...strings(v)]);
  return [];
}

/** name → how the workflows read it: `vars.X`, `secrets.X` or both, and in which files. */
export function workflowInputs(docs: ReadonlyMap<string, unknown>): Map<string, Input> {
  const found = new Map<string, { vars: boolean; secrets: boolean; files: Set<string> }>();
  for (const [file, doc] of docs) {
    for (const text of strings(doc)) {
      for (const m of text.matchAll(/\$\{\{([^}]*)\}\}/g)) {
        for (const ref of m[1]!.matchAll(/\b(vars|secrets)\.([A-Za-z0-9_]+)/g)) {
          const e = found.get(ref[2]!) ?? { vars: false, secrets: false, files: new Set<string>() };
          e[ref[1] as 'vars' | 'secrets'] = true;
          e.files.add(file);
          found.set(ref[2]!, e);
        }
      }
    }
  }
  return new Map(
    [...found].map(([name, e]) => [
      name,
      {
        kind: e.vars && e.secrets ? 'secret or variable' : e.secrets ? 'secret' : 'variable',
        files: [...e.files].sort(),
      },
    ]),
  );
}

const TABLE_MARKER = '<!-- workflow-inputs:';

/** The table right after the marker in docs/deploy.md: name → kind and "read by" files. */
export function documentedInputs(markdown: string): Map<string, Input> {
  const at = markdown.indexOf(TABLE_MARKER);
  if (at === -1) throw new Error(`docs/deploy.md has no ${TABLE_MARKER} marker before the variables table`);
  const lines = markdown.slice(at).split('\n').slice(1);
  const rows: Map<string, Input> = new Map();
  for (const line of lines.slice(2)) {
    if (!line.startsWith('|')) break;
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    const name = /^`([A-Z0-9_]+)`$/.exec(cells[0] ?? '')?.[1];
    if (name === undefined)
      throw new Error(`variables table: the first cell must be one \`NAME\`, got ${JSON.stringify(cells[0])}`);
    if (rows.has(name)) throw new Error(`variables table: ${name} is listed twice`);
    rows.set(name, {
      kind: cells[1] as Kind,
      files: (cells[2] ?? '')
        .split(',')
        .map((f) => f.trim())
        .sort(),
    });
  }
  return rows;
}

const workflowFiles = readdirSync(WORKFLOW_DIR).filter((f) => /\.ya?ml$/.test(f));
const parsed = new Map(
  workflowFiles.map((f) => [f, parse(readFileSync(path.join(WORKFLOW_DIR, f), 'utf8')) as unknown]),
);

describe('docs/deploy.md, the variables and secrets table', () => {
  const inWorkflows = workflowInputs(parsed);
  const inDocs = documentedInputs(deploy);

  it('reads the workflows: the inputs this project is known to need are found', () => {
    for (const name of [
      'AWS_ROLE_ARN',
      'RESET_S3_BUCKET',
      'RESET_PUBLIC_BASE_URL',
      'RESET_CONTACT_URL',
      'RESET_NOTIFY_LANG',
      'RESET_UPSTREAM_STATUS_URL',
    ]) {
      expect(inWorkflows.get(name)?.kind, name).toBe(
        name === 'RESET_UPSTREAM_STATUS_URL' ? 'secret or variable' : 'variable',
      );
    }
    expect(inWorkflows.get('RESET_NOTIFY_WEBHOOKS')?.kind).toBe('secret');
  });

  it('lists exactly the variables and secrets the workflows read, each with how and where it is read', () => {
    const show = (m: Map<string, Input>) => Object.fromEntries([...m].sort(([a], [b]) => a.localeCompare(b)));
    expect(show(inDocs)).toEqual(show(inWorkflows));
  });

  it('fails on drift in either direction (the check can fail)', () => {
    const extra = new Map(parsed).set('planted.yml', {
      jobs: { a: { env: { X: '${{ secrets.PLANTED_TOKEN }}', Y: '${{ vars.AWS_REGION }}' } } },
    });
    const withExtra = workflowInputs(extra);
    expect(withExtra.get('PLANTED_TOKEN')).toEqual({ kind: 'secret', files: ['planted.yml'] });
    expect(withExtra.get('AWS_REGION')?.files).toContain('planted.yml');
    expect(() => documentedInputs(deploy.replace(/^\| `RESET_NOTIFY_LANG` .*\n/m, ''))).not.toThrow();
    expect(documentedInputs(deploy.replace(/^\| `RESET_NOTIFY_LANG` .*\n/m, '')).has('RESET_NOTIFY_LANG')).toBe(false);
  });

  it('names RESET_PUBLIC_BASE_URL as required for production', () => {
    expect(deploy).toMatch(/\*\*`RESET_PUBLIC_BASE_URL` is required for production\.\*\*/);
    expect(deploy).toMatch(/^\| `RESET_PUBLIC_BASE_URL` \| variable \| refresh\.yml, release\.yml \| \*\*yes\*\* \|/m);
  });
});

describe('README', () => {
  it('names every builder setting (RESET_*) the workflows pass', () => {
    const names = [...workflowInputs(parsed).keys()].filter((n) => n.startsWith('RESET_'));
    expect(names.length).toBeGreaterThan(10);
    for (const name of names) expect(readme, name).toContain(`\`${name}\``);
  });
});

describe('docs/deploy.md, the cost tables', () => {
  it('are the output of scripts/costs.ts for its prices, with every source listed', () => {
    expect(deploy).toContain(renderCostTable(AWS_LINES));
    expect(deploy).toContain(renderCostTable(WORKER_LINES));
    expect(deploy).toContain(renderSources());
  });
});

/** A cited test file counts if it exists from the repository root or from the citing file's own directory. */
function missingTestReferences(files: readonly string[], read: (file: string) => string): string[] {
  const missing: string[] = [];
  for (const file of files) {
    for (const m of read(file).matchAll(/(?:[\w.-]+\/)*test\/[\w/.-]+\.test\.ts/g)) {
      const ref = m[0];
      if (!existsSync(path.join(ROOT, ref)) && !existsSync(path.join(ROOT, path.dirname(file), ref)))
        missing.push(`${file}: ${ref}`);
    }
  }
  return missing;
}

describe('cited test files', () => {
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter(
      (f) =>
        f !== '' &&
        /\.(ts|js|md|json|ya?ml|sh)$/.test(f) &&
        f !== 'package-lock.json' &&
        existsSync(path.join(ROOT, f)),
    )
    // This file plants missing references on purpose, below.
    .filter((f) => f !== 'test/docs.test.ts');

  it('every `test/….test.ts` named in a tracked file (code comments, docs, README) exists', () => {
    expect(tracked.length).toBeGreaterThan(100);
    expect(missingTestReferences(tracked, (f) => readFileSync(path.join(ROOT, f), 'utf8'))).toEqual([]);
  });

  it('catches a reference to a file that does not exist (the check can fail)', () => {
    const planted = new Map([
      ['builder/x.ts', '// pinned by test/no-such/thing.test.ts and test/docs.test.ts'],
      ['infra/x.md', 'see [`test/stack.test.ts`](test/stack.test.ts) and infra/test/nag.test.ts'],
    ]);
    expect(missingTestReferences([...planted.keys()], (f) => planted.get(f)!)).toEqual([
      'builder/x.ts: test/no-such/thing.test.ts',
      'infra/x.md: infra/test/nag.test.ts',
    ]);
  });
});
