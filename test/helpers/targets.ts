// The HTTP hosts of the API that one contract suite runs against: the local preview (http-server + the router) and the
// Cloudflare Worker in workerd (miniflare, on 127.0.0.1, with the static-assets settings of workers/wrangler.json).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';
import { startPreview } from '../../builder/edge/preview.ts';
import { bundleWorker } from '../../scripts/build-worker.ts';
import wrangler from '../../workers/wrangler.json' with { type: 'json' };

export type TargetName = 'preview' | 'worker';
export const TARGETS: readonly TargetName[] = ['preview', 'worker'];

export interface ServedApi {
  url: string;
  close(): Promise<void>;
}

const FIXED_CLOCK_ENTRY = path.join(path.dirname(fileURLToPath(import.meta.url)), 'worker-fixed-clock.ts');
let workerCode: Promise<string> | null = null;

/**
 * Serves the build in `root` on 127.0.0.1 through `target`, with the clock fixed at `now` (epoch ms) or the real one.
 * `entry`: the Worker module to run (default: the production handler behind the test-only fixed clock).
 */
export async function startTarget(target: TargetName, root: string, now?: number, entry?: string): Promise<ServedApi> {
  if (target === 'preview') return startPreview({ root, port: 0, ...(now !== undefined ? { now: () => now } : {}) });
  const code = entry !== undefined ? bundleWorker(entry) : (workerCode ??= bundleWorker(FIXED_CLOCK_ENTRY));
  const mf = new Miniflare({
    host: '127.0.0.1',
    port: 0,
    modules: true,
    script: await code,
    compatibilityDate: wrangler.compatibility_date,
    assets: {
      directory: root,
      binding: wrangler.assets.binding,
      routerConfig: { invoke_user_worker_ahead_of_assets: wrangler.assets.run_worker_first, has_user_worker: true },
      assetConfig: {
        html_handling: wrangler.assets.html_handling as 'none',
        not_found_handling: wrangler.assets.not_found_handling as 'none',
      },
    },
    ...(now !== undefined ? { bindings: { FIXED_NOW: new Date(now).toISOString() } } : {}),
  });
  const url = await mf.ready;
  return { url: url.origin, close: () => mf.dispose() };
}
