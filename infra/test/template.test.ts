// The committed template is what a fresh synth produces (deterministically), the layout the IAM statements are
// written against is the builder's own, and cdk-nag's AwsSolutions checks pass with every exception reasoned.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Validations } from 'aws-cdk-lib';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { NOT_FOUND_KEY } from '../../builder/contract.ts';
import {
  DEFAULT_BACKUP_PREFIX,
  DEFAULT_LOCK_KEY,
  DEFAULT_MANIFEST_KEY,
  DEFAULT_STATE_KEY,
  PUBLIC_API_ROOT,
} from '../../builder/s3/config.ts';
import { DEFAULT_CORRUPT_PREFIX, LAST_GOOD_SUFFIX } from '../../builder/state/s3-store.ts';
import { REPO_ROOT, buildApp, synthTemplate } from '../lib/app.ts';
import * as layout from '../lib/layout.ts';
import { synthStack } from './helpers.ts';

describe('template', () => {
  it('infra/template.json is committed and equal to a fresh synth (run `npm run synth` after changing infra/ or the edge bundle)', () => {
    const outdir = () => mkdtempSync(path.join(tmpdir(), 'rsa-infra-synth-'));
    const fresh = synthTemplate({ outdir: outdir() });
    expect(readFileSync(path.join(REPO_ROOT, 'infra/template.json'), 'utf8')).toBe(fresh);
    expect(synthTemplate({ outdir: outdir() })).toBe(fresh);
  });

  it('names the keys the builder uses by default', () => {
    expect(layout.API_PREFIX).toBe(PUBLIC_API_ROOT);
    expect(layout.STATE_KEY).toBe(DEFAULT_STATE_KEY);
    expect(layout.STATE_LAST_GOOD_KEY).toBe(DEFAULT_STATE_KEY + LAST_GOOD_SUFFIX);
    expect(layout.LOCK_KEY).toBe(DEFAULT_LOCK_KEY);
    expect(layout.MANIFEST_KEY).toBe(DEFAULT_MANIFEST_KEY);
    expect(layout.CORRUPT_PREFIX).toBe(DEFAULT_CORRUPT_PREFIX);
    expect(layout.BACKUP_PREFIX).toBe(DEFAULT_BACKUP_PREFIX);
    expect(layout.NOT_FOUND_PATH).toBe(`/${NOT_FOUND_KEY}`);
  });
});

describe('cdk-nag AwsSolutions', () => {
  it('reports no finding that is not acknowledged', () => {
    const { app, stack } = synthStack();
    const report = new AwsSolutionsChecks(app).validateScope(stack);
    expect(
      report.violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`),
    ).toEqual([]);
    expect(report.success).toBe(true);
  });

  it('gives every acknowledgement a written reason', () => {
    const { stack } = synthStack();
    const reasons: [string, string][] = [];
    for (const c of stack.node.findAll()) {
      for (const m of c.node.metadata) {
        if (m.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
        for (const [id, reason] of Object.entries(m.data as Record<string, unknown>))
          reasons.push([id, typeof reason === 'string' ? reason : JSON.stringify(reason)]);
      }
    }
    expect(reasons.length).toBeGreaterThan(0);
    for (const [id, reason] of reasons) expect(reason.length, id).toBeGreaterThan(40);
  });

  it('stops the deploy-time synth (cdk deploy) on a finding nobody acknowledged', () => {
    const { app, stack } = buildApp({ nag: true, outdir: mkdtempSync(path.join(tmpdir(), 'rsa-infra-nag-')) });
    expect(() => app.synth()).not.toThrow();
    const fresh = buildApp({ nag: true, outdir: mkdtempSync(path.join(tmpdir(), 'rsa-infra-nag-')) });
    new Bucket(fresh.stack, 'Unacknowledged', { enforceSSL: true });
    expect(() => fresh.app.synth()).toThrow(/AwsSolutions-S1/);
    expect(stack.stackName).toBe(fresh.stack.stackName);
  });

  it('flags what is not acknowledged (the check is live, not silenced wholesale)', () => {
    const { app, stack } = synthStack();
    new Bucket(stack, 'Unacknowledged', { enforceSSL: true });
    const report = new AwsSolutionsChecks(app).validateScope(stack);
    expect(report.violations.map((v) => v.ruleName)).toEqual(['AwsSolutions-S1']);
    expect(report.violations[0]?.violatingResources.map((r) => r.constructPath)).toEqual([
      'ResetStatusApi/Unacknowledged/Resource',
    ]);
  });
});
