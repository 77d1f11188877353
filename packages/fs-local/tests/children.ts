import { join } from 'node:path'
import { build } from 'vite'

/**
 * Bundles `children/<name>.ts` (and the provider's source it imports) into one ES module that
 * plain `node` can run, so tests can race real separate processes against the real code.
 */
export async function bundleChild(name: string, outDir: string): Promise<string> {
  const conditions = ['dsh-source', 'node', 'import', 'module', 'default']
  await build({
    configFile: false,
    logLevel: 'silent',
    resolve: { conditions },
    ssr: { noExternal: true, resolve: { conditions, externalConditions: conditions } },
    build: {
      ssr: join(import.meta.dirname, 'children', `${name}.ts`),
      outDir,
      emptyOutDir: false,
      minify: false,
      rollupOptions: { output: { format: 'es', entryFileNames: `${name}.mjs` } },
    },
  })
  return join(outDir, `${name}.mjs`)
}
