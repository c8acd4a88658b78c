// Every file below a directory, as paths relative to it: for suites that check a whole build's output.
import { readdir } from 'node:fs/promises';
import path from 'node:path';

export async function listFiles(root: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(path.join(root, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await listFiles(root, r)));
    else out.push(r);
  }
  return out;
}
