import { build } from 'vite'
import { basename, join } from 'node:path'

/**
 * Bundles one child-process entry (and the workspace source it imports, through the `dsh-source`
 * condition) into a single ES module that plain `node` starts in tens of milliseconds: the
 * reliability specs spawn hundreds of real processes, so tsx's start-up cost would dominate.
 */
export async function bundleEntry(entry: string, outDir: string): Promise<string> {
  const conditions = ['dsh-source', 'node', 'import', 'module', 'default']
  const name = basename(entry).replace(/\.ts$/, '')
  await build({
    configFile: false,
    logLevel: 'silent',
    resolve: { conditions },
    ssr: { noExternal: true, resolve: { conditions, externalConditions: conditions } },
    build: {
      ssr: entry,
      outDir,
      emptyOutDir: false,
      minify: false,
      rollupOptions: { output: { format: 'es', entryFileNames: `${name}.mjs` } },
    },
  })
  return join(outDir, `${name}.mjs`)
}
