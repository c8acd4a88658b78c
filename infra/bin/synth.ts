// `npm run synth` (from the repository root): writes infra/template.json from the CDK app, in-process, with no
// AWS account or CLI. `--check` fails when the committed template differs from a fresh synth (CI runs it), so a
// stack or edge-bundle change that was never re-synthesized cannot land.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT, synthTemplate } from '../lib/app.ts';

const TEMPLATE_PATH = path.join(REPO_ROOT, 'infra/template.json');
const rel = path.relative(process.cwd(), TEMPLATE_PATH) || TEMPLATE_PATH;

const outdir = mkdtempSync(path.join(tmpdir(), 'rsa-synth-'));
let fresh: string;
try {
  fresh = synthTemplate({ outdir });
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
if (process.argv.includes('--check')) {
  const committed = existsSync(TEMPLATE_PATH) ? readFileSync(TEMPLATE_PATH, 'utf8') : null;
  if (committed === fresh) console.log(`synth: ${rel} is up to date`);
  else {
    console.error(
      `synth: ${rel} is ${committed === null ? 'missing' : 'stale (differs from a fresh synth of infra/)'}; run \`npm run synth\` and commit it`,
    );
    process.exitCode = 1;
  }
} else {
  writeFileSync(TEMPLATE_PATH, fresh, 'utf8');
  console.log(`synth: wrote ${rel} (${Buffer.byteLength(fresh)} bytes)`);
}
