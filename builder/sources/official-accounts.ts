// data/official-accounts.json: the reviewed list of X accounts whose posts are the service's official word on Codex
// usage limits. A post the service reads itself (post-embed.ts) can verify a reset only when its author is listed here;
// git review of this file is how an account gets on it or off it.
import { z } from 'zod';

const OfficialAccountSchema = z.strictObject({
  /** The account's handle as X shows it, without the `@`. */
  handle: z.string().regex(/^[A-Za-z0-9_]{1,15}$/, 'an X handle: 1-15 letters, digits or _, without @'),
  name: z.string().trim().min(1),
  /** Who they are, and why their posts count as the service's official word on Codex limits. */
  why: z.string().trim().min(20, 'say who the account is and why its posts count (at least 20 characters)'),
  decided_by: z.string().trim().min(1),
  decided_at: z.iso.date(),
});
export type OfficialAccount = z.infer<typeof OfficialAccountSchema>;

export const OfficialAccountsFileSchema = z
  .strictObject({ rule: z.string().trim().min(1), accounts: z.array(OfficialAccountSchema) })
  .superRefine((file, ctx) => {
    const seen = new Set<string>();
    file.accounts.forEach((a, i) => {
      const key = a.handle.toLowerCase();
      if (seen.has(key)) ctx.addIssue({ code: 'custom', path: ['accounts', i, 'handle'], message: 'listed twice' });
      seen.add(key);
    });
  });
