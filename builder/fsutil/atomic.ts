// Atomic file writes shared by the local state store, the local sink and the backups.
import { randomUUID } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Write-then-rename into an existing directory, so a reader or a crash never sees half a file. */
export async function replaceFile(file: string, body: string | Uint8Array): Promise<void> {
  const tmp = `${file}.${process.pid}.${randomUUID()}.tmp`;
  await writeFile(tmp, body);
  await rename(tmp, file);
}

/** As replaceFile, creating the directory first. */
export async function writeFileAtomic(file: string, body: string | Uint8Array): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await replaceFile(file, body);
}
