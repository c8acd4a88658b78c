// The edge store in production: a CloudFront KeyValueStore, written with UpdateKeys under its ETag (a concurrent
// writer makes the call fail with a conflict instead of interleaving), in batches the API accepts.
import {
  CloudFrontKeyValueStoreClient,
  ConflictException,
  DescribeKeyValueStoreCommand,
  UpdateKeysCommand,
  paginateListKeys,
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
  /** Region, endpoint (tests point it at a loopback server), credentials. */
  clientConfig?: CloudFrontKeyValueStoreClientConfig;
}

export function createKvsEdgeStore({ arn, clientConfig }: KvsEdgeStoreOptions): EdgeStore {
  const client = new CloudFrontKeyValueStoreClient({ region: 'us-east-1', ...clientConfig });
  /** One call, its failure a StorageError naming the call and the store (the SDK error as its cause). */
  const call = <T>(what: string, send: () => Promise<T>): Promise<T> =>
    send().catch((err: Error) => {
      throw new StorageError(WHERE, `${what} ${arn}: ${err.name}: ${err.message}`, { cause: err });
    });

  const read = () =>
    call('ListKeys', async () => {
      const out = Object.create(null) as Record<string, string>;
      for await (const page of paginateListKeys({ client }, { KvsARN: arn }))
        for (const { Key, Value } of page.Items ?? []) if (Key !== undefined && Value !== undefined) out[Key] = Value;
      return out;
    });

  async function writeOnce(entries: Readonly<Record<string, string>>) {
    const described = new DescribeKeyValueStoreCommand({ KvsARN: arn });
    let tag = (await call('DescribeKeyValueStore', () => client.send(described))).ETag;
    const plan = planEdgeStore(await read(), entries);
    // New keys first and deletions last, so a reader between two batches sees more event ids, never fewer.
    const changes = [
      ...plan.puts.map((p) => ({ Key: p.key, Value: p.value })),
      ...plan.deletes.map((Key) => ({ Key })),
    ];
    for (let i = 0; i < changes.length; i += KVS_BATCH) {
      if (tag === undefined) throw new StorageError(WHERE, `${arn}: the KeyValueStore API answered without an ETag`);
      const batch = changes.slice(i, i + KVS_BATCH);
      const Puts = batch.filter((c): c is { Key: string; Value: string } => 'Value' in c);
      const Deletes = batch.filter((c) => !('Value' in c));
      const update = new UpdateKeysCommand({
        KvsARN: arn,
        IfMatch: tag,
        Puts: Puts.length ? Puts : undefined,
        Deletes: Deletes.length ? Deletes : undefined,
      });
      tag = (await call('UpdateKeys', () => client.send(update))).ETag;
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
          if (!((err as Error).cause instanceof ConflictException) || attempt >= ATTEMPTS) throw err;
        }
      }
    },
  };
}
