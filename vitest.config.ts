import { defineConfig } from 'vitest/config'
import { projects } from './vitest.workspace'

// Tests import sibling packages through the `dsh-source` export condition: no build needed.
const conditions = ['dsh-source', 'node', 'import', 'module', 'default']

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: conditions } },
  test: {
    projects,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})
