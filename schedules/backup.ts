// Daily backup job and its manual counterparts:
//   tsx schedules/backup.ts create | list | verify <id> | restore <id> [--data-dir data]
// Bucket and prefixes come from RESET_S3_* (see builder/publish/s3-config.ts); credentials from the AWS chain.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createBackup, listBackups, restoreBackup, verifyBackup, type BackupProblem, type BackupTarget } from '../builder/publish/backup.ts';
import { createS3Client, s3ConfigFromEnv } from '../builder/publish/s3-config.ts';

const USAGE = 'usage: tsx schedules/backup.ts create | list | verify <id> | restore <id> [--data-dir DIR]';
const DEFAULT_DATA_DIR = 'data';

function formatProblems(problems: readonly BackupProblem[]): string {
  return problems.map((p) => `  ${p.kind}: ${p.object}: ${p.detail}`).join('\n');
}

export async function main(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, now: Date): Promise<number> {
  const [command, id, ...rest] = argv;
  let dataDir = DEFAULT_DATA_DIR;
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '--data-dir' && rest[i + 1] !== undefined) dataDir = rest[++i]!;
    else {
      console.error(`backup: unexpected argument ${JSON.stringify(rest[i])}\n${USAGE}`);
      return 2;
    }
  }
  dataDir = path.resolve(dataDir);
  if (command === 'create' || command === 'list' ? id !== undefined : id === undefined) {
    console.error(USAGE);
    return 2;
  }
  const parsed = s3ConfigFromEnv(env);
  if (!parsed.ok) {
    console.error(`backup: ${parsed.error}`);
    return 2;
  }
  const cfg = parsed.config;
  const target: BackupTarget = {
    client: createS3Client(cfg),
    bucket: cfg.bucket,
    backupPrefix: cfg.backupPrefix,
    stateKey: cfg.stateKey,
    publicPrefix: cfg.prefix,
    concurrency: cfg.concurrency,
  };

  switch (command) {
    case 'create': {
      const b = await createBackup(target, { dataDir, now });
      console.log(`backup ${b.id}: state ${b.state ? 'saved' : 'absent'}, ${b.files} data files -> ${b.location}`);
      const check = await verifyBackup(target, b.id);
      if (!check.ok) {
        console.error(`backup ${b.id} does not verify right after writing it:\n${formatProblems(check.problems)}`);
        return 1;
      }
      return 0;
    }
    case 'list': {
      for (const b of await listBackups(target)) console.log(b);
      return 0;
    }
    case 'verify': {
      const r = await verifyBackup(target, id!);
      if (r.ok) console.log(`backup ${r.id}: ${r.checked} objects verified`);
      else console.error(`backup ${r.id}: ${r.problems.length} problem(s):\n${formatProblems(r.problems)}`);
      return r.ok ? 0 : 1;
    }
    case 'restore': {
      const r = await restoreBackup(target, id!, { dataDir });
      if (!r.ok) {
        console.error(`backup ${r.id} fails verification; nothing was restored:\n${formatProblems(r.problems)}`);
        return 1;
      }
      console.log(
        `restored ${r.id}: state ${r.stateRestored ? 'restored' : 'not in backup'}, ${r.files} data files into ${dataDir}` +
          (r.replacedStateKept ? ` (previous state kept at ${r.replacedStateKept})` : ''),
      );
      return 0;
    }
    default:
      console.error(USAGE);
      return 2;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    process.exitCode = await main(process.argv.slice(2), process.env, new Date());
  } catch (err) {
    console.error(`backup failed: ${(err as Error).message}`);
    process.exitCode = 1;
  }
}
