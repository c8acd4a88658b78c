// Daily backup job and its manual counterparts:
//   tsx schedules/backup.ts create | list | verify <id> | restore <id> [--data-dir data]
// Bucket and prefixes come from RESET_S3_* (see builder/s3/config.ts); credentials from the AWS chain.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, EXIT, messageOf } from '../builder/errors.ts';
import { isEntryPoint, processIo, runMain, type Env, type Io } from '../builder/main.ts';
import {
  createBackup,
  listBackups,
  restoreBackup,
  verifyBackup,
  type BackupProblem,
  type BackupTarget,
} from '../builder/publish/backup.ts';
import { createS3Client } from '../builder/s3/client.ts';
import { requireS3Config } from '../builder/s3/config.ts';

const USAGE = 'usage: tsx schedules/backup.ts create | list | verify <id> | restore <id> [--data-dir DIR]';

function formatProblems(problems: readonly BackupProblem[]): string {
  return problems.map((p) => `  ${p.kind}: ${p.object}: ${p.detail}`).join('\n');
}

export function main(argv: readonly string[], env: Env, io: Io = processIo): Promise<number> {
  return runMain('backup', io, () => backup(argv, env, io));
}

async function backup(argv: readonly string[], env: Env, io: Io): Promise<number> {
  let parsed;
  try {
    const options = { 'data-dir': { type: 'string', default: 'data' } } as const;
    parsed = parseArgs({ args: [...argv], allowPositionals: true, options });
  } catch (err) {
    throw new ConfigError('backup', `${messageOf(err)}\n${USAGE}`, { cause: err });
  }
  const [command, id, ...extra] = parsed.positionals;
  const dataDir = path.resolve(parsed.values['data-dir']);
  if (extra.length > 0 || (command === 'create' || command === 'list' ? id !== undefined : id === undefined))
    throw new ConfigError('backup', USAGE);
  const cfg = requireS3Config(env);
  const target: BackupTarget = { ...cfg, client: createS3Client(cfg), publicPrefix: cfg.prefix };

  switch (command) {
    case 'create': {
      const b = await createBackup(target, { dataDir, now: io.now() });
      io.out(`backup ${b.id}: state ${b.state ? 'saved' : 'absent'}, ${b.files} data files -> ${b.location}`);
      const check = await verifyBackup(target, b.id);
      if (!check.ok) {
        io.err(`backup ${b.id} does not verify right after writing it:\n${formatProblems(check.problems)}`);
        return EXIT.failed;
      }
      return EXIT.ok;
    }
    case 'list':
      for (const b of await listBackups(target)) io.out(b);
      return EXIT.ok;
    case 'verify': {
      const r = await verifyBackup(target, id!);
      if (r.ok) io.out(`backup ${r.id}: ${r.checked} objects verified`);
      else io.err(`backup ${r.id}: ${r.problems.length} problem(s):\n${formatProblems(r.problems)}`);
      return r.ok ? EXIT.ok : EXIT.failed;
    }
    case 'restore': {
      const r = await restoreBackup(target, id!, { dataDir });
      if (!r.ok) {
        io.err(`backup ${r.id} fails verification; nothing was restored:\n${formatProblems(r.problems)}`);
        return EXIT.failed;
      }
      io.out(
        `restored ${r.id}: state ${r.stateRestored ? 'restored' : 'not in backup'}, ${r.files} data files into ${dataDir}` +
          (r.replacedStateKept ? ` (previous state kept at ${r.replacedStateKept})` : ''),
      );
      return EXIT.ok;
    }
    default:
      throw new ConfigError('backup', USAGE);
  }
}

if (isEntryPoint(import.meta.url, 'backup')) {
  process.exitCode = await main(process.argv.slice(2), process.env);
}
