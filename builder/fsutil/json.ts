// Reading a stored JSON document (text, or UTF-8 bytes) against its schema, saying why it is unusable.
import type { z } from 'zod';

export function parseJsonWith<T extends z.ZodType>(
  text: string | Uint8Array,
  schema: T,
): { ok: true; data: z.output<T> } | { ok: false; reason: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(typeof text === 'string' ? text : Buffer.from(text).toString('utf8'));
  } catch (err) {
    return { ok: false, reason: `not valid JSON (${(err as Error).message})` };
  }
  const r = schema.safeParse(raw);
  if (r.success) return { ok: true, data: r.data };
  const i = r.error.issues[0]!;
  return { ok: false, reason: `schema mismatch at ${i.path.map(String).join('.') || '(root)'}: ${i.message}` };
}
