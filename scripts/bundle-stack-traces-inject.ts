// esbuild injects this module into every schedule bundle (scripts/build-schedules.ts), so it runs before any other
// module of the bundle; import.meta.url is then the bundle's own URL.
import { installBundleStackTraces } from './bundle-stack-traces.ts';

installBundleStackTraces(import.meta.url);
