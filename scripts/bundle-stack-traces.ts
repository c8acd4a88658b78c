// Stack traces of a schedule bundle (scripts/build-schedules.ts) name the TypeScript sources, like
// `node --enable-source-maps`, but the source map is read only when a trace is first formatted. With the flag, Node
// reads and parses the 2 MB map and measures every line of the 4 MB bundle at each start, ~14% of importing it
// (BENCHMARKS.md 1a), for traces that a tick almost never prints: runMain reports expected failures by message.
import { readFileSync, writeSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';

/** The parts of V8's CallSite a frame's line is made of. */
export interface Frame {
  getFileName(): string | undefined | null;
  getLineNumber(): number | null;
  getColumnNumber(): number | null;
  getEnclosingLineNumber?(): number | null;
  getEnclosingColumnNumber?(): number | null;
  getFunctionName(): string | null;
  getMethodName(): string | null;
  getTypeName(): string | null;
  isConstructor(): boolean;
  isAsync?(): boolean;
  toString(): string;
}

type FindEntry = (line: number, column: number) => { originalSource?: string; originalLine?: number; originalColumn?: number; name?: string };

/** `TypeError: message`, and `TypeError [ERR_CODE]: message` for Node's own errors, as Node heads a trace. */
function headOf(error: unknown): string {
  try {
    const e = error as { name?: unknown; message?: unknown; code?: unknown };
    const head = Error.prototype.toString.call(error);
    if (typeof e.code === 'string' && e.code.startsWith('ERR_') && typeof e.name === 'string') return head.replace(e.name, `${e.name} [${e.code}]`);
    return head;
  } catch {
    return '<error>';
  }
}

/**
 * A prepareStackTrace for the bundle at `bundleUrl`: its frames become `name (/abs/source.ts:line:col)`, other frames
 * stay as V8 writes them. `loadMap` runs at most once, on the first frame in the bundle; if it fails, frames stay
 * unmapped rather than the trace being lost.
 */
export function createBundleStackFormatter(bundleUrl: string, loadMap: () => FindEntry | null): (error: unknown, frames: readonly Frame[]) => string {
  let find: FindEntry | null | undefined;
  const mapUrl = `${bundleUrl}.map`;
  const mapped = (f: Frame): string | null => {
    if (f.getFileName() !== bundleUrl) return null;
    if (find === undefined) {
      try {
        find = loadMap();
      } catch {
        find = null;
      }
    }
    const line = f.getLineNumber();
    const column = f.getColumnNumber();
    if (find === null || line === null || column === null) return null;
    // Stack positions count from 1, source map positions from 0.
    const at = find(line - 1, column - 1);
    if (at.originalSource === undefined || at.originalLine === undefined || at.originalColumn === undefined) return null;
    const source = at.originalSource.startsWith('file:') || !/^[a-z][a-z0-9+.-]*:/i.test(at.originalSource) ? fileURLToPath(new URL(at.originalSource, mapUrl)) : at.originalSource;
    // The function's own name in the sources: esbuild renames some (validate2), the map names them at their start.
    const el = f.getEnclosingLineNumber?.() ?? null;
    const ec = f.getEnclosingColumnNumber?.() ?? null;
    const original = el !== null && ec !== null ? find(el - 1, ec - 1).name : undefined;
    const fn = f.getFunctionName() ?? f.getMethodName();
    const type = f.getTypeName();
    const name = original ?? (fn && type && type !== 'global' && !f.isConstructor() && f.getMethodName() ? `${type}.${fn}` : fn);
    const prefix = `${f.isAsync?.() ? 'async ' : ''}${f.isConstructor() ? 'new ' : ''}`;
    const where = `${source}:${at.originalLine + 1}:${at.originalColumn + 1}`;
    return name ? `${prefix}${name} (${where})` : `${prefix}${where}`;
  };
  return (error, frames) => {
    const lines = frames.map((f) => {
      try {
        return mapped(f) ?? String(f);
      } catch {
        return String(f);
      }
    });
    return [headOf(error), ...lines.map((l) => `    at ${l}`)].join('\n');
  };
}

/** What Node prints for an uncaught error, less the line of code it would quote: here a line of the bundle (~100 KB). */
export function uncaughtReport(err: unknown): string {
  const body = err instanceof Error ? (err.stack ?? String(err)) : `Uncaught ${inspect(err)}`;
  return `${body}\n\nNode.js ${process.version}\n`;
}

/**
 * Installs the formatter for the bundle at `bundleUrl` (its map beside it, `<bundle>.map`), and reports an uncaught
 * error (or unhandled rejection, which Node raises as one) as Node would, exit code 1, without quoting the bundle.
 */
export function installBundleStackTraces(bundleUrl: string): void {
  Error.prepareStackTrace = createBundleStackFormatter(bundleUrl, () => {
    const map = new SourceMap(JSON.parse(readFileSync(new URL(`${bundleUrl}.map`), 'utf8')) as ConstructorParameters<typeof SourceMap>[0]);
    return (line, column) => map.findEntry(line, column) as ReturnType<FindEntry>;
  }) as typeof Error.prepareStackTrace;
  process.on('uncaughtException', (err) => {
    writeSync(2, uncaughtReport(err));
    process.exit(1);
  });
}
