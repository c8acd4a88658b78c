// Dependencies run one way (DESIGN.md "Shape"): this reads the import graph of builder/ and fails on any import
// against the direction. TypeScript's own pre-processor finds the specifiers (static, re-exports and dynamic).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const BUILDER = path.join(ROOT, 'builder');

type Graph = Map<string, string[]>;

/** Each .ts file of builder/ (relative to the repository, '/'-separated) → what it imports, resolved the same way. */
function importGraph(): Graph {
  const graph: Graph = new Map();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) {
        const info = ts.preProcessFile(readFileSync(full, 'utf8'), true, true);
        const from = path.relative(ROOT, full).split(path.sep).join('/');
        graph.set(
          from,
          info.importedFiles.map((f) =>
            f.fileName.startsWith('.')
              ? path.posix.normalize(path.posix.join(path.posix.dirname(from), f.fileName))
              : f.fileName,
          ),
        );
      }
    }
  };
  walk(BUILDER);
  // The Cloudflare Worker, another edge target of the same router.
  walk(path.join(ROOT, 'workers/src'));
  // The published client package, which ships without the builder.
  walk(path.join(ROOT, 'clients/src'));
  return graph;
}

/** The stage a file belongs to: its folder under builder/, or its own name for files at the top. */
function stageOf(file: string): string | null {
  const m = /^builder\/(?:([^/]+)\/|([^/]+)\.ts$)/.exec(file);
  return m === null ? null : (m[1] ?? m[2] ?? null);
}

const ADAPTERS = ['sources', 'state', 'publish', 'notify'];
const IO_PACKAGES = [/^node:fs/, /^node:https?$/, /^node:net$/, /^@aws-sdk\//, /^http-server$/];

interface Rule {
  label: string;
  applies: (file: string) => boolean;
  forbids: (target: string, targetStage: string | null, fileStage: string | null) => boolean;
}

const stage = (s: string) => (file: string) => stageOf(file) === s;

export const RULES: Rule[] = [
  {
    label: 'builder/ never imports research/, scripts/ or bench/ (research and benchmarks live outside the runtime)',
    applies: (f) => f.startsWith('builder/'),
    forbids: (t) => /^(research|scripts|bench)\//.test(t),
  },
  { label: 'contract.ts imports nothing', applies: (f) => f === 'builder/contract.ts', forbids: () => true },
  { label: 'errors.ts imports nothing', applies: (f) => f === 'builder/errors.ts', forbids: () => true },
  {
    label: 'model/ imports only model/ and the contract (and no I/O)',
    applies: stage('model'),
    forbids: (t, s) =>
      (s !== null && s !== 'model' && s !== 'contract' && s !== 'errors') || IO_PACKAGES.some((p) => p.test(t)),
  },
  {
    label: 'render/ imports only render/, model/ and the contract (and no I/O)',
    applies: stage('render'),
    forbids: (t, s) =>
      (s !== null && !['render', 'model', 'contract', 'errors'].includes(s)) || IO_PACKAGES.some((p) => p.test(t)),
  },
  {
    label: 'adapters (sources, state, publish, notify) never import each other',
    applies: (f) => ADAPTERS.includes(stageOf(f) ?? ''),
    forbids: (_t, s, own) => s !== null && s !== own && ADAPTERS.includes(s),
  },
  {
    label: 'sources/ imports no render/ or edge/',
    applies: stage('sources'),
    forbids: (_t, s) => s === 'render' || s === 'edge' || s === 's3',
  },
  {
    label: 'state/ and publish/ import no edge/ or sources/',
    applies: (f) => ['state', 'publish'].includes(stageOf(f) ?? ''),
    forbids: (_t, s) => s === 'edge' || s === 'sources',
  },
  {
    label: 'the shared helpers (s3/, fsutil/, net/) import only the contract and errors',
    applies: (f) => ['s3', 'fsutil', 'net'].includes(stageOf(f) ?? ''),
    forbids: (_t, s) => s !== null && !['s3', 'fsutil', 'net', 'contract', 'errors'].includes(s),
  },
  {
    label: 'edge/route.ts imports only the contract and the locale messages',
    applies: (f) => f === 'builder/edge/route.ts',
    forbids: (t) => t !== 'builder/contract.ts' && !/^locales\/[a-z]{2}\/[a-z-]+\.json$/.test(t),
  },
  {
    label: 'the Worker (workers/src) wraps the shared router: it imports only the contract and edge/route.ts',
    applies: (f) => f.startsWith('workers/src/'),
    forbids: (t) => t !== 'builder/contract.ts' && t !== 'builder/edge/route.ts',
  },
  {
    label:
      'the client package (clients/src) imports only its own files and packages: nothing of builder/ (its types are generated)',
    applies: (f) => f.startsWith('clients/src/'),
    // A target whose first segment is a folder of the repository is a file of it (relative imports are resolved).
    forbids: (t) => !t.startsWith('clients/src/') && existsSync(path.join(ROOT, t.split('/')[0]!)),
  },
];

/** Imports that break a rule, as `file -> target (rule)`. */
export function violations(graph: Graph, rules: readonly Rule[] = RULES): string[] {
  const out: string[] = [];
  for (const [file, targets] of graph) {
    for (const target of targets) {
      const s = stageOf(target);
      for (const rule of rules) {
        if (!rule.applies(file)) continue;
        if (rule.forbids(target, s, stageOf(file))) out.push(`${file} -> ${target} (${rule.label})`);
      }
    }
  }
  return out;
}

describe('import direction', () => {
  const graph = importGraph();

  it('reads every module of builder/, multi-line and dynamic imports included', () => {
    expect(graph.size).toBeGreaterThan(40);
    expect(graph.get('builder/main.ts')).toContain('builder/s3-targets.ts'); // a dynamic import()
    expect(graph.get('builder/edge/route.ts')).toContain('builder/contract.ts');
    expect(graph.get('workers/src/index.ts')).toContain('builder/edge/route.ts');
    expect(graph.get('clients/src/client.ts')).toContain('clients/src/api.d.ts');
  });

  it('keeps research out of the runtime: backtests and candidate models live in research/, not builder/', () => {
    for (const gone of ['builder/model/backtest.ts', 'builder/model/hazard.ts'])
      expect(existsSync(path.join(ROOT, gone)), gone).toBe(false);
    for (const here of ['research/backtest.ts', 'research/candidates.ts', 'research/main.ts'])
      expect(existsSync(path.join(ROOT, here)), here).toBe(true);
    expect(JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.backtest).toMatch(
      /research\/main\.ts/,
    );
  });

  it('has no import against the direction of the house', () => {
    expect(violations(graph)).toEqual([]);
  });

  it('catches each kind of forbidden import (the checker itself can fail)', () => {
    const bad: Graph = new Map([
      ['builder/model/apply.ts', ['builder/sources/fetcher.ts', 'node:fs/promises']],
      ['builder/render/documents.ts', ['builder/publish/sink.ts']],
      ['builder/state/s3-store.ts', ['builder/publish/s3-sink.ts']],
      ['builder/publish/local-sink.ts', ['builder/state/local-store.ts', 'builder/publish/sink.ts']],
      ['builder/sources/index.ts', ['builder/render/output.ts']],
      ['builder/edge/route.ts', ['builder/model/schemas.ts', 'locales/en/errors.json']],
      ['builder/contract.ts', ['zod']],
      ['builder/model/forecast.ts', ['research/candidates.ts']],
      ['builder/s3/client.ts', ['builder/state/store.ts']],
      ['workers/src/index.ts', ['builder/edge/route.ts', 'builder/edge/preview.ts']],
      [
        'clients/src/client.ts',
        ['clients/src/api.d.ts', 'openapi-fetch', 'builder/contract.ts', 'locales/en/errors.json'],
      ],
    ]);
    const found = violations(bad);
    for (const edge of [
      'builder/model/apply.ts -> builder/sources/fetcher.ts',
      'builder/model/apply.ts -> node:fs/promises',
      'builder/render/documents.ts -> builder/publish/sink.ts',
      'builder/state/s3-store.ts -> builder/publish/s3-sink.ts',
      'builder/publish/local-sink.ts -> builder/state/local-store.ts',
      'builder/sources/index.ts -> builder/render/output.ts',
      'builder/edge/route.ts -> builder/model/schemas.ts',
      'builder/contract.ts -> zod',
      'builder/model/forecast.ts -> research/candidates.ts',
      'builder/s3/client.ts -> builder/state/store.ts',
      'workers/src/index.ts -> builder/edge/preview.ts',
      'clients/src/client.ts -> builder/contract.ts',
      'clients/src/client.ts -> locales/en/errors.json',
    ]) {
      expect(
        found.some((v) => v.startsWith(edge)),
        edge,
      ).toBe(true);
    }
    expect(found.some((v) => v.startsWith('builder/publish/local-sink.ts -> builder/publish/sink.ts'))).toBe(false);
    expect(found.some((v) => v.includes('locales/en/errors.json') && !v.startsWith('clients/'))).toBe(false);
    expect(
      found.some(
        (v) =>
          v.startsWith('clients/src/client.ts -> clients/src/api.d.ts') ||
          v.startsWith('clients/src/client.ts -> openapi-fetch'),
      ),
    ).toBe(false);
  });
});
