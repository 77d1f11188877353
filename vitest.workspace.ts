import { readdirSync } from 'node:fs'
import type { TestProjectInlineConfiguration } from 'vitest/config'

// One inline project per package: unit tests beside the code, integration tests in tests/.
export const projects: TestProjectInlineConfiguration[] = readdirSync(new URL('./packages', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => ({
    extends: true,
    test: {
      name: entry.name,
      root: `packages/${entry.name}`,
      include: ['src/**/*.test.ts', 'tests/**/*.spec.ts'],
    },
  }))

export default projects
