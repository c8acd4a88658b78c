// Fail closed on the public URL, against real S3 (radosgw): a publishing build without an absolute https://
// RESET_PUBLIC_BASE_URL exits 2 naming the variable and leaves the bucket without a single object (no document, no
// state, no lock, no manifest); with one it publishes feeds and calendars that link only to it. The refresh job is
// run as the workflow runs it: refresh.yml's own step script, with its `${{ vars.X }}` expressions evaluated the way
// GitHub does for an operator who never defined the variable (an empty string).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse } from 'yaml';
import { LANGS } from '../../builder/contract.ts';
import {
  S3_ENDPOINT,
  createTestBucket,
  createTestClient,
  describeS3,
  listAllKeys,
  readText,
  removeTestBucket,
} from './helpers.ts';

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
const NOW = '2026-11-21T12:00:00Z';
const PUBLIC = 'https://api.example.test';
/** A child build of the whole API publishes about 400 objects to radosgw. */
const PUBLISH_TIMEOUT_MS = 120_000;
const CREDENTIALS = {
  AWS_REGION: process.env.RESET_TEST_S3_REGION ?? 'us-east-1',
  AWS_ACCESS_KEY_ID: process.env.RESET_TEST_S3_ACCESS_KEY_ID ?? 'reset-test-access-key',
  AWS_SECRET_ACCESS_KEY: process.env.RESET_TEST_S3_SECRET_ACCESS_KEY ?? 'reset-test-secret-key',
};
/** Every source off: nothing in a test reaches past the loopback. */
const NO_SOURCES = {
  RESET_STATUS_PAGE_URL: '',
  RESET_UPSTREAM_URL: '',
  RESET_TIMELINE_URL: '',
  RESET_POST_EMBED_URL: '',
  RESET_SIGNAL_FEEDS: '',
};

interface Exit {
  code: number | null;
  output: string;
}

/** A process with exactly `env` (and PATH): nothing of this test's own environment leaks into it. */
function runChild(command: string, args: string[], env: Record<string, string>): Promise<Exit> {
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, output })));
}

const build = (args: string[], env: Record<string, string>) =>
  runChild(process.execPath, ['--import', 'tsx', 'builder/main.ts', '--now', NOW, ...args], env);

interface Step {
  run?: string;
  env?: Record<string, string>;
}
const workflow = parse(readFileSync(path.join(REPO_ROOT, '.github/workflows/refresh.yml'), 'utf8')) as {
  jobs: Record<string, { steps?: Step[] }>;
};
const workflowSteps = Object.values(workflow.jobs).flatMap((j) => j.steps ?? []);
const publishStep = workflowSteps.find((s) => (s.run ?? '').includes('build/refresh.mjs'));
/** The step that bundles the builder before the publish (scripts/build-schedules.ts writes build/refresh.mjs). */
const bundleStep = workflowSteps.find((s) => (s.run ?? '').includes('scripts/build-schedules.ts'));

/**
 * The step's env as GitHub evaluates it for these repository variables and secrets: an undefined one is ''. Only the
 * two forms the workflow uses are understood; anything else fails the test rather than being guessed.
 */
function evaluateEnv(
  step: Step,
  vars: Record<string, string>,
  secrets: Record<string, string> = {},
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(step.env ?? {})) {
    const v = String(value);
    const m = /^\$\{\{ (.+) \}\}$/.exec(v);
    if (m === null) {
      out[name] = v;
      continue;
    }
    const parts = m[1]!.split(' || ').map((p) => /^(vars|secrets)\.([A-Z0-9_]+)$/.exec(p.trim()));
    if (parts.some((p) => p === null)) throw new Error(`refresh.yml env ${name}: unexpected expression ${v}`);
    out[name] = parts.map((p) => (p![1] === 'vars' ? vars : secrets)[p![2]!] ?? '').find((x) => x !== '') ?? '';
  }
  return out;
}

/** refresh.yml's publish step, its own `run` script in bash, with `vars` as the repository's variables. */
function runWorkflowStep(vars: Record<string, string>): Promise<Exit> {
  if (publishStep?.run === undefined) throw new Error('refresh.yml has no step running build/refresh.mjs');
  // What configure-aws-credentials provides in the workflow, and the endpoint of this S3 instead of AWS's.
  const env = { ...evaluateEnv(publishStep, vars), ...CREDENTIALS, RESET_S3_ENDPOINT: S3_ENDPOINT };
  // The scheduled job runs as of the wall clock; the run's --now is appended to the same command line.
  return runChild(
    'bash',
    ['-euo', 'pipefail', '-c', publishStep.run.replace('build/refresh.mjs', `build/refresh.mjs --now ${NOW}`)],
    env,
  );
}

describeS3('a publishing build fails closed on RESET_PUBLIC_BASE_URL (radosgw)', () => {
  let client: S3Client;
  let refused: string;
  const buckets: string[] = [];

  beforeAll(async () => {
    // The workflow's own build step first: the publish step runs its bundle (and the AWS SDK bundled into it).
    if (bundleStep?.run === undefined) throw new Error('refresh.yml has no step running scripts/build-schedules.ts');
    const bundled = await runChild('bash', ['-euo', 'pipefail', '-c', bundleStep.run], {});
    if (bundled.code !== 0) throw new Error(`refresh.yml's bundle step failed: ${bundled.output}`);
    client = createTestClient();
    refused = await createTestBucket(client, 'pub-refused');
    buckets.push(refused);
  });
  afterAll(async () => {
    for (const b of buckets) await removeTestBucket(client, b);
  });

  const s3Env = (bucket: string) => ({
    ...CREDENTIALS,
    ...NO_SOURCES,
    RESET_S3_BUCKET: bucket,
    RESET_S3_ENDPOINT: S3_ENDPOINT,
  });

  it.each([
    ['unset', undefined, /RESET_PUBLIC_BASE_URL must be the absolute https:\/\/ URL .*; it is not set/],
    ['empty', '', /RESET_PUBLIC_BASE_URL .*; it is empty/],
    [
      'http',
      'http://api.example.test',
      /RESET_PUBLIC_BASE_URL .*; got "http:\/\/api.example.test", which is not https/,
    ],
    ['relative', '/status', /RESET_PUBLIC_BASE_URL .*; got "\/status"/],
    ['a host without a scheme', 'api.example.test', /RESET_PUBLIC_BASE_URL .*; got "api.example.test"/],
    ['the loopback over https', 'https://127.0.0.1:8080', /RESET_PUBLIC_BASE_URL .*a loopback address/],
  ])(
    '--target s3 with the public URL %s exits 2 naming the variable and writes nothing',
    async (_label, value, message) => {
      const env: Record<string, string> = s3Env(refused);
      if (value !== undefined) env.RESET_PUBLIC_BASE_URL = value;
      const r = await build(['--target', 's3'], env);
      expect(r.code, r.output).toBe(2);
      expect(r.output).toMatch(message);
      expect(r.output).not.toMatch(/failed: no valid API/);
      // No document, no state, no lock, no manifest: the bucket is as the test created it.
      expect(await listAllKeys(client, refused)).toEqual([]);
    },
  );

  it('RESET_TARGET=s3 is held to the same rule', async () => {
    const r = await build([], {
      ...s3Env(refused),
      RESET_TARGET: 's3',
      RESET_PUBLIC_BASE_URL: 'http://api.example.test',
    });
    expect(r.code, r.output).toBe(2);
    expect(r.output).toMatch(/RESET_PUBLIC_BASE_URL .* for --target s3/);
    expect(await listAllKeys(client, refused)).toEqual([]);
  });

  it('refresh.yml with RESET_PUBLIC_BASE_URL undefined in the repository: the step fails with exit 2 and the clear error, and publishes nothing', async () => {
    const r = await runWorkflowStep({
      RESET_S3_BUCKET: refused,
      RESET_STATUS_PAGE_URL: 'none',
      RESET_UPSTREAM_URL: 'none',
      RESET_SIGNAL_FEEDS: 'none',
      RESET_UPSTREAM_STATUS_URL: 'none',
      RESET_TIMELINE_URL: 'none',
      RESET_POST_EMBED_URL: 'none',
    });
    expect(r.code, r.output).toBe(2);
    expect(r.output).toMatch(
      /^refresh: \[config\/public-url\] RESET_PUBLIC_BASE_URL must be the absolute https:\/\/ URL .*; it is empty$/m,
    );
    expect(await listAllKeys(client, refused)).toEqual([]);
  });

  it(
    'refresh.yml with an https RESET_PUBLIC_BASE_URL and RESET_CONTACT_URL publishes feeds, calendars and the OpenAPI document linking only there',
    async () => {
      const bucket = await createTestBucket(client, 'pub-https');
      buckets.push(bucket);
      const r = await runWorkflowStep({
        RESET_S3_BUCKET: bucket,
        RESET_PUBLIC_BASE_URL: `${PUBLIC}/`,
        RESET_CONTACT_URL: 'https://example.test/contact',
        RESET_STATUS_PAGE_URL: 'none',
        RESET_UPSTREAM_URL: 'none',
        RESET_SIGNAL_FEEDS: 'none',
        RESET_UPSTREAM_STATUS_URL: 'none',
        RESET_TIMELINE_URL: 'none',
        RESET_POST_EMBED_URL: 'none',
      });
      expect(r.code, r.output).toBe(0);
      const keys = await listAllKeys(client, bucket);
      expect(keys).toContain('state/state.json');
      for (const lang of LANGS) {
        for (const name of ['feed.atom', 'feed.json', 'calendar.ics']) {
          const body = await readText(client, bucket, `api/${lang}/${name}`);
          expect(body, `api/${lang}/${name}`).toContain(`${PUBLIC}/${lang}/#event-`);
          expect(body, `api/${lang}/${name}`).not.toMatch(/127\.0\.0\.1|localhost|\/\/api\.example\.test\/\//);
        }
      }
      const openapi = JSON.parse((await readText(client, bucket, 'api/openapi.json')) ?? 'null') as {
        servers: { url: string }[];
        info: { contact: { url?: string } };
      };
      expect(openapi.servers[0]?.url).toBe(PUBLIC);
      // RESET_CONTACT_URL reaches the build only if refresh.yml passes it.
      expect(openapi.info.contact.url).toBe('https://example.test/contact');
    },
    PUBLISH_TIMEOUT_MS,
  );
});
