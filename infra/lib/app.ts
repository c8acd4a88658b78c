// Builds the CDK app in-process: the same code serves `cdk deploy` (bin/app.ts), `npm run synth` (bin/synth.ts)
// and the tests, so what is tested is what is committed and deployed.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ResetStatusApiStack } from './stack.ts';

export const STACK_NAME = 'ResetStatusApi';
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const FUNCTION_CODE_PATH = path.join(REPO_ROOT, 'edge/cloudfront-function.js');

export interface BuildOptions {
  outdir?: string;
  useExistingOidcProvider?: boolean;
  /** Run cdk-nag's AwsSolutions pack as a validation plugin at synth: a finding fails `cdk deploy`. */
  nag?: boolean;
}

export function buildApp(opts: BuildOptions = {}): { app: App; stack: ResetStatusApiStack } {
  // No analytics metadata: the template must depend on the code alone, not on the CDK's construct inventory.
  const app = new App({ analyticsReporting: false, ...(opts.outdir !== undefined ? { outdir: opts.outdir } : {}) });
  // `cdk deploy -c useExistingOidcProvider=true` when the account already trusts GitHub's issuer.
  const context = String(app.node.tryGetContext('useExistingOidcProvider') ?? '') === 'true';
  const stack = new ResetStatusApiStack(app, STACK_NAME, {
    description: 'Reset Status API: static JSON API on S3 + CloudFront, published by GitHub Actions',
    functionCodePath: FUNCTION_CODE_PATH,
    useExistingOidcProvider: opts.useExistingOidcProvider ?? context,
  });
  if (opts.nag === true) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}

/** The stack's CloudFormation template as committed: two-space JSON with a trailing newline. */
export function synthTemplate(opts: BuildOptions = {}): string {
  const { app, stack } = buildApp(opts);
  const template = app.synth().getStackByName(stack.stackName).template as unknown;
  return JSON.stringify(template, null, 2) + '\n';
}
