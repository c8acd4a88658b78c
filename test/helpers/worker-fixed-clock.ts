// Test-only entry of the Worker: the production handler (workers/src/index.ts) with the clock fixed by a binding, as
// the preview takes `--now`. workerd has no settable clock, and this hook never reaches a deployment: the production
// entry reads Date.now() and scripts/build-worker.ts bundles only that one.
import { handleRequest, type WorkerEnv } from '../../workers/src/index.ts';

export default {
  fetch(request: Request, env: WorkerEnv & { FIXED_NOW?: string }): Promise<Response> {
    const fixed = typeof env.FIXED_NOW === 'string' ? Date.parse(env.FIXED_NOW) : Number.NaN;
    return handleRequest(request, env, Number.isNaN(fixed) ? Date.now() : fixed);
  },
};
