// The edge store in production: a CloudFront KeyValueStore, written with UpdateKeys under its ETag (a concurrent
// writer makes the call fail with a conflict instead of interleaving), in batches the API accepts.
import {
  CloudFrontKeyValueStoreClient,
  ConflictException,
  DescribeKeyValueStoreCommand,
  ListKeysCommand,
  UpdateKeysCommand,
  type CloudFrontKeyValueStoreClientConfig,
} from '@aws-sdk/client-cloudfront-keyvaluestore';
// The KeyValueStore API is signed with SigV4A; this registers the SDK's pure-JavaScript signer (no native CRT).
import '@aws-sdk/signature-v4a';
import { StorageError } from '../errors.ts';
import { planEdgeStore, type EdgeStore } from './edge-store.ts';

const WHERE = 'publish/kvs-edge-store';
/** Keys changed per UpdateKeys call; each call returns the ETag the next one must present. */
export const KVS_BATCH = 50;
const ATTEMPTS = 3;

export interface KvsEdgeStoreOptions {
  arn: string;
  client?: CloudFrontKeyValueStoreClient;
  /** For a client built here: region, endpoint (tests point it at a loopback server), credentials. */
  clientConfig?: CloudFrontKeyValueStoreClientConfig;
}

export function createKvsEdgeStore(opts: KvsEdgeStoreOptions): EdgeStore {
  const client = opts.client ?? new CloudFrontKeyValueStoreClient({ region: 'us-east-1', ...opts.clientConfig });
  const arn = opts.arn;
  const fail = (what: string, err: unknown) =>
    new StorageError(WHERE, `${what} ${arn}: ${(err as Error).name}: ${(err as Error).message}`, { cause: err });

  async function read(): Promise<Record<string, string>> {
    const out: Record<string, string> = Object.create(null) as Record<string, string>;
    let token: string | undefined;
    do {
      let page;
      try {
        page = await client.send(
          new ListKeysCommand({ KvsARN: arn, ...(token !== undefined ? { NextToken: token } : {}) }),
        );
      } catch (err) {
        throw fail('ListKeys', err);
      }
      for (const item of page.Items ?? [])
        if (item.Key !== undefined && item.Value !== undefined) out[item.Key] = item.Value;
      token = page.NextToken;
    } while (token);
    return out;
  }

  async function etag(): Promise<string> {
    try {
      const d = await client.send(new DescribeKeyValueStoreCommand({ KvsARN: arn }));
      if (d.ETag === undefined) throw new Error('no ETag in the answer'); // wrapped below
      return d.ETag;
    } catch (err) {
      throw fail('DescribeKeyValueStore', err);
    }
  }

  async function writeOnce(entries: Readonly<Record<string, string>>) {
    let tag = await etag();
    const plan = planEdgeStore(await read(), entries);
    // New keys first and deletions last, so a reader between two batches sees more event ids, never fewer.
    const changes = [
      ...plan.puts.map((p) => ({ put: { Key: p.key, Value: p.value } })),
      ...plan.deletes.map((d) => ({ del: { Key: d } })),
    ];
    for (let i = 0; i < changes.length; i += KVS_BATCH) {
      const batch = changes.slice(i, i + KVS_BATCH);
      const Puts = batch.flatMap((c) => ('put' in c ? [c.put] : []));
      const Deletes = batch.flatMap((c) => ('del' in c ? [c.del] : []));
      const r = await client.send(
        new UpdateKeysCommand({
          KvsARN: arn,
          IfMatch: tag,
          Puts: Puts.length ? Puts : undefined,
          Deletes: Deletes.length ? Deletes : undefined,
        }),
      );
      if (r.ETag === undefined) throw new StorageError(WHERE, `UpdateKeys ${arn}: no ETag in the answer`);
      tag = r.ETag;
    }
    return { target: arn, put: plan.puts.length, deleted: plan.deletes.length, unchanged: plan.unchanged };
  }

  return {
    read,
    async write(entries) {
      for (let attempt = 1; ; attempt++) {
        try {
          return await writeOnce(entries);
        } catch (err) {
          // Another writer moved the ETag between our read and our write: plan again from what is there now.
          if (err instanceof ConflictException && attempt < ATTEMPTS) continue;
          throw err instanceof StorageError ? err : fail('UpdateKeys', err);
        }
      }
    },
  };
}
