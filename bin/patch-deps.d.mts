// Types of what TypeScript code imports from bin/patch-deps.mjs (plain JavaScript: it runs at install).
/** A fix backported into a dependency: `find` is the text it replaces with `fixed` in `pkg`/`file`. */
export interface DepPatch {
  pkg: string;
  file: string;
  find: string;
  fixed: string;
}
export declare const PATCHES: DepPatch[];
/** Applies each patch under `root`'s node_modules (`check`: only says which need it); throws when one cannot be applied. */
export declare function patchDeps(root?: string, options?: { check?: boolean }): string[];
