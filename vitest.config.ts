import { defineConfig } from 'vitest/config'
import { projects } from './vitest.workspace'

// Tests import sibling packages through the `dsh-source` export condition: no build needed.
const conditions = ['dsh-source', 'node', 'import', 'module', 'default']

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: conditions } },
  test: {
    projects,
    // CI asks for a machine-readable report as well (see .ci/run).
    reporters: process.env.DSH_VITEST_JSON ? ['default', ['json', { outputFile: process.env.DSH_VITEST_JSON }]] : ['default'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})
