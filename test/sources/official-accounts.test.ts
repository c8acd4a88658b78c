// data/official-accounts.json: the reviewed list of official accounts, loaded and validated with the rest of data/.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { citedPost } from '../../builder/model/evidence.ts';
import { loadCuratedData } from '../../builder/sources/archive.ts';

const DATA = new URL('../../data', import.meta.url).pathname;
const FILE = 'official-accounts.json';

/** A copy of data/ with the official accounts' file changed by `edit` (deleted when it returns null). */
async function dataWith(edit: (doc: any) => unknown): Promise<string> {
  const dir = path.join(await mkdtemp(path.join(tmpdir(), 'rsa-accounts-')), 'data');
  await cp(DATA, dir, { recursive: true });
  const file = path.join(dir, FILE);
  const next = edit(JSON.parse(await readFile(file, 'utf8')));
  if (next === null) await rm(file);
  else await writeFile(file, JSON.stringify(next));
  return dir;
}

describe('data/official-accounts.json', () => {
  it('loads: the handles lower-cased, each entry saying who decided, when and why', async () => {
    const curated = await loadCuratedData(DATA);
    expect(curated.official_accounts).toEqual(['thsottiaux', 'openai', 'openaidevs']);
    for (const a of curated.official_account_entries!) {
      expect(a.why.length, a.handle).toBeGreaterThan(100);
      expect(a).toMatchObject({
        decided_by: expect.any(String),
        decided_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      });
    }
  });

  it("lists the author of every post curated history cites (the ledger's resets are all @thsottiaux's)", async () => {
    const curated = await loadCuratedData(DATA);
    const authors = new Set(
      curated.events.flatMap((e) =>
        citedPost(e.sources) === null ? [] : e.sources.map((s) => s.author?.toLowerCase()),
      ),
    );
    expect([...authors]).toEqual(['thsottiaux']);
    for (const a of authors) expect(curated.official_accounts).toContain(a);
  });

  it.each([
    [
      'an entry without its reason',
      (d: any) => void delete d.accounts[1].why,
      /official-accounts\.json: accounts\.1\.why/,
    ],
    [
      'a handle written with @',
      (d: any) => void (d.accounts[2].handle = '@OpenAIDevs'),
      /official-accounts\.json: accounts\.2\.handle/,
    ],
    ['a date that is not one', (d: any) => void (d.accounts[0].decided_at = '2026-13-01'), /accounts\.0\.decided_at/],
    ['a misspelt field', (d: any) => void (d.accounts[0].decided_on = 'x'), /accounts\.0: Unrecognized key/],
    [
      'an account listed twice',
      (d: any) => void d.accounts.push({ ...d.accounts[0], handle: 'THSottiaux' }),
      /accounts\.3\.handle: listed twice/,
    ],
    ['no rule', (d: any) => void delete d.rule, /official-accounts\.json: rule/],
  ])('fails the build on %s, naming the file and the field', async (_, edit, message) => {
    const dir = await dataWith((doc) => {
      edit(doc);
      return doc;
    });
    await expect(loadCuratedData(dir)).rejects.toThrow(message);
  });

  it('is an empty list when the file is absent: nobody is official, nothing is verified by a post', async () => {
    const curated = await loadCuratedData(await dataWith(() => null));
    expect(curated.official_accounts).toEqual([]);
    expect(curated.official_account_entries).toEqual([]);
  });
});
