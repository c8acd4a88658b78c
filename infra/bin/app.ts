// Entry point of the CDK CLI (infra/cdk.json): `npx cdk deploy` synthesizes into the CLI's output directory, with
// cdk-nag's AwsSolutions checks as a validation plugin, so a new finding stops a deploy as it fails the tests.
import { buildApp } from '../lib/app.ts';

buildApp({ nag: true }).app.synth();
