// Writes the OpenAPI document the build publishes to a file, for the linters (`npm run lint:openapi`).
//   tsx scripts/openapi.ts [out]    default: dist/openapi.json; RESET_PUBLIC_BASE_URL sets `servers`
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { buildOpenApi } from '../builder/render/openapi.ts';

const out = process.argv[2] ?? 'dist/openapi.json';
const serverUrl = process.env.RESET_PUBLIC_BASE_URL || undefined;
await mkdir(path.dirname(out), { recursive: true });
await writeFile(out, JSON.stringify(buildOpenApi(serverUrl === undefined ? {} : { serverUrl }), null, 2) + '\n');
console.log(`openapi: wrote ${out}`);
