import { createRequire } from 'node:module'

/** The part of esbuild's API used here (esbuild comes with tsx; it is not a dependency of its own). */
interface Esbuild {
  build(options: Record<string, unknown>): Promise<{ errors: unknown[] }>
}

/**
 * Bundles a TypeScript entry (and the workspace sources it imports, through the `dsh-source`
 * condition) into one plain ESM file, so a child process can run it on bare `node`. Measuring
 * memory under tsx would add its loader thread (~36 MB here) to every figure; a built package
 * runs without it.
 */
// Loaded when the bench starts: once upstream's packages are imported into this process (B1),
// a later `require('esbuild')` from here no longer resolves.
const esbuild = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'))('esbuild') as Esbuild

export async function bundle(entry: string, outfile: string, external: string[] = []): Promise<void> {
  await esbuild.build({
    // Left as imports: packages with native parts or files of their own (resolved from `outfile`'s place).
    external,
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['dsh-source'],
    logLevel: 'error',
    // Some CommonJS dependencies call require(); give the ESM bundle one.
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  })
}
