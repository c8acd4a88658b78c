// Entry point of the CDK CLI (infra/cdk.json): `npx cdk deploy` synthesizes into the CLI's output directory.
import { buildApp } from '../lib/app.ts';

buildApp().app.synth();
