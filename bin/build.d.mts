// Types of what TypeScript code imports from bin/build.mjs (plain JavaScript: it runs before any build).
import type { BuildOptions } from 'esbuild';

export declare function bundleOptions(entryPoints: Record<string, string>, outdir: string): BuildOptions;
export declare function commandBundleOptions(entryPoints: Record<string, string>, outdir: string): BuildOptions;
