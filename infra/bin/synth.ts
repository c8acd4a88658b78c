// `npm run synth` (from the repository root): writes infra/template.json from the CDK app, in-process, with no
// AWS account or CLI. `--check` fails when the committed template differs from a fresh synth (CI runs it), so a
// stack or edge-bundle change that was never re-synthesized cannot land.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT, synthTemplate } from '../lib/app.ts';

const TEMPLATE_PATH = path.join(REPO_ROOT, 'infra/template.json');

function main(argv: readonly string[]): number {
  const check = argv.includes('--check');
  const outdir = mkdtempSync(path.join(tmpdir(), 'rsa-synth-'));
  let fresh: string;
  try {
    fresh = synthTemplate({ outdir });
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
  const rel = path.relative(process.cwd(), TEMPLATE_PATH) || TEMPLATE_PATH;
  if (check) {
    let committed: string | null;
    try {
      committed = readFileSync(TEMPLATE_PATH, 'utf8');
    } catch {
      committed = null;
    }
    if (committed !== fresh) {
      console.error(
        `synth: ${rel} is ${committed === null ? 'missing' : 'stale (differs from a fresh synth of infra/)'}; run \`npm run synth\` and commit it`,
      );
      return 1;
    }
    console.log(`synth: ${rel} is up to date`);
    return 0;
  }
  writeFileSync(TEMPLATE_PATH, fresh, 'utf8');
  console.log(`synth: wrote ${rel} (${Buffer.byteLength(fresh)} bytes)`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
