// Pure: how the local sink writes a build into a directory, decided document by document as the build streams in,
// from a listing of what is there. The sink (local-sink.ts) only carries it out. See local-sink.ts for why each
// kind of write exists.
import type { OutputDocument } from '../render/output.ts';
import { EDGE_STORE_FILE } from '../contract.ts';

export interface DirectoryListing {
  /** Keys of the files already there. */
  files: ReadonlySet<string>;
  /** Directories already there, relative to the root ('' is the root itself). */
  dirs: ReadonlySet<string>;
}

export type LocalWrite =
  /** The file exists: read it, replace it only when its bytes differ. */
  | { kind: 'compare'; doc: OutputDocument }
  /** A new file in a directory that exists: temp file + rename. */
  | { kind: 'create'; doc: OutputDocument }
  /** A new file in a new directory: written into the staged copy of `top`, at `rest` below it. */
  | { kind: 'staged'; doc: OutputDocument; top: string; rest: string };

export interface LocalPlanner {
  /** How this document of the current phase is written. */
  place(doc: OutputDocument): LocalWrite;
  /**
   * Ends the current phase: the topmost missing directories it created, each to be renamed into place whole after
   * its writes. From the next phase on, they count as existing.
   */
  endPhase(): string[];
}

export const parentOf = (key: string): string => {
  const i = key.lastIndexOf('/');
  return i < 0 ? '' : key.slice(0, i);
};

export function createLocalPlanner(listing: DirectoryListing): LocalPlanner {
  const dirs = new Set(listing.dirs);
  let tops = new Set<string>();
  let created = new Set<string>();
  return {
    place(doc) {
      if (listing.files.has(doc.key)) return { kind: 'compare', doc };
      const parent = parentOf(doc.key);
      if (dirs.has(parent)) return { kind: 'create', doc };
      const parts = parent.split('/');
      let top = parts[0]!;
      for (let i = 1; dirs.has(top); i++) top = `${top}/${parts[i]!}`;
      tops.add(top);
      created.add(parent);
      return { kind: 'staged', doc, top, rest: doc.key.slice(top.length + 1) };
    },
    endPhase() {
      for (const p of created) {
        for (let i = p.indexOf('/'); i >= 0; i = p.indexOf('/', i + 1)) dirs.add(p.slice(0, i));
        dirs.add(p);
      }
      const ended = [...tops];
      tops = new Set();
      created = new Set();
      return ended;
    },
  };
}

/** Files there that the build (its keys, all of them) no longer has. */
export function leftoverFiles(files: Iterable<string>, built: ReadonlySet<string>): string[] {
  // The edge store's file lives next to the documents (the preview reads it there) but is not one of them.
  return [...files].filter((f) => !built.has(f) && f !== EDGE_STORE_FILE);
}
