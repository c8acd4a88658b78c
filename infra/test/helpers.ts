// Shared by the infra tests: one synthesized stack per test file, and a readable rendering of CloudFormation
// intrinsics so IAM statements can be compared whole.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { buildApp } from '../lib/app.ts';

export function synthStack(opts: { useExistingOidcProvider?: boolean } = {}) {
  const built = buildApp({ outdir: mkdtempSync(path.join(tmpdir(), 'rsa-infra-test-')), ...opts });
  return { ...built, template: Template.fromStack(built.stack) };
}

/**
 * Turns `{"Fn::GetAtt": ["Bucket1234", "Arn"]}` into `Bucket1234.Arn`, `{"Ref": "X"}` into `${X}` and joins
 * `Fn::Join`, so `arn:...:bucket/api/*` reads as `Bucket1234.Arn/api/*` in an assertion.
 */
export function render(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(render);
  if (value === null || typeof value !== 'object') return value;
  const o = value as Record<string, unknown>;
  if ('Ref' in o) return `\${${String(o.Ref)}}`;
  if ('Fn::GetAtt' in o) return (o['Fn::GetAtt'] as string[]).join('.');
  if ('Fn::Join' in o) {
    const [sep, parts] = o['Fn::Join'] as [string, unknown[]];
    return parts.map((p) => String(render(p))).join(sep);
  }
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, render(v)]));
}

export interface Statement {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Resource?: unknown;
  NotResource?: unknown;
  Principal?: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

export const list = (v: unknown): unknown[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** The one resource of `type` whose logical id starts with `prefix`. */
export function only(
  template: Template,
  type: string,
  prefix: string,
): { id: string; props: Record<string, unknown>; raw: Record<string, unknown> } {
  const found = Object.entries(template.findResources(type)).filter(([id]) => id.startsWith(prefix));
  if (found.length !== 1)
    throw new Error(`expected one ${type} named ${prefix}*, found ${found.map(([id]) => id).join(', ') || 'none'}`);
  const [id, raw] = found[0] as [string, Record<string, unknown>];
  return { id, props: (raw.Properties ?? {}) as Record<string, unknown>, raw };
}
