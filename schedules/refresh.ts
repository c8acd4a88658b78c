// The refresh job (every 15 minutes from .github/workflows/refresh.yml): one build run published to S3, then a
// markdown table of what it did appended to $GITHUB_STEP_SUMMARY, so the Actions page shows each run at a glance.
//   tsx schedules/refresh.ts [--now ISO] [--target s3|local] [--out dist] [--state-dir .state] [--data-dir data]
// The target defaults to RESET_TARGET, else s3: this entry point exists for the scheduled publish.
import { appendFile } from 'node:fs/promises';
import { EXIT } from '../builder/errors.ts';
import {
  formatSummary,
  isEntryPoint,
  parseBuildArgs,
  processIo,
  runBuild,
  runMain,
  type Env,
  type Io,
} from '../builder/main.ts';
import type { RunSummary } from '../builder/run.ts';

/** Keeps a cell on one table row whatever a source's detail contains. */
const cell = (v: string): string => v.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');
const pct = (v: number | null): string => (v === null ? '`null` (too little data)' : `${(v * 100).toFixed(1)}%`);

/** The job summary: pure, so a test can pin it without running a build. */
export function formatStepSummary(s: RunSummary, target: string): string {
  const rows: [string, string][] = [
    ['as of', `\`${s.asOf}\``],
    ['target', cell(target)],
  ];
  if (s.skipped) {
    rows.push(['result', 'skipped: another run holds the lock; nothing published by this one']);
  } else {
    const p = s.published;
    if (p !== null)
      rows.push([
        'documents',
        `${s.documents} rendered: ${p.written} written, ${p.unchanged} unchanged, ${p.deleted} deleted, ${p.pendingDelete} awaiting deletion`,
      ]);
    for (const src of s.sources)
      rows.push([`source \`${cell(src.id)}\``, `${src.ok ? 'ok' : '**failed**'}: ${cell(src.detail)}`]);
    if (s.sources.length === 0) rows.push(['sources', 'none checked (all disabled)']);
    rows.push(['today', `\`${s.today ?? 'n/a'}\` (reset: \`${String(s.reset)}\`)`]);
    if (s.edge)
      rows.push([
        'edge',
        `stale after \`${s.edge.stale_after}\`; store: ${s.edge.store.put} put, ${s.edge.store.deleted} deleted`,
      ]);
    const f = s.forecast;
    if (f !== null)
      rows.push([
        'forecast',
        `24h ${pct(f.probability_24h)}, 48h ${pct(f.probability_48h)}, sample ${f.sample_size}, model \`${cell(f.model_version)}\``,
      ]);
  }
  for (const w of s.warnings) rows.push(['warning', cell(w)]);
  return `### Refresh\n\n| item | this run |\n|---|---|\n${rows.map(([k, v]) => `| ${k} | ${v} |\n`).join('')}`;
}

export const formatFailureSummary = (message: string): string =>
  `### Refresh failed\n\nNo valid API was published by this run; the previous documents stay in place.\n\n\`\`\`\n${message}\n\`\`\`\n`;

async function writeStepSummary(env: Env, markdown: string): Promise<void> {
  if (env.GITHUB_STEP_SUMMARY) await appendFile(env.GITHUB_STEP_SUMMARY, markdown + '\n', 'utf8');
}

export function refresh(argv: readonly string[], env: Env, io: Io = processIo): Promise<number> {
  const args = argv.some((a) => a === '--target' || a.startsWith('--target='))
    ? [...argv]
    : ['--target', env.RESET_TARGET || 's3', ...argv];
  return runMain(
    'refresh',
    io,
    async () => {
      const opts = parseBuildArgs(args, env, io.now);
      const target =
        opts.target === 's3'
          ? `s3://${env.RESET_S3_BUCKET ?? '?'}/${env.RESET_S3_PREFIX ?? ''}`
          : `local:${opts.outDir}`;
      const summary = await runBuild(opts, env, io);
      io.out(formatSummary(summary));
      await writeStepSummary(env, formatStepSummary(summary, target));
      return EXIT.ok;
    },
    (message) => writeStepSummary(env, formatFailureSummary(message)),
  );
}

if (isEntryPoint(import.meta.url, 'refresh')) {
  process.exitCode = await refresh(process.argv.slice(2), process.env);
}
