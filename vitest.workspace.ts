import { readdirSync } from 'node:fs'
import type { TestProjectInlineConfiguration } from 'vitest/config'

// One inline project per package: unit tests beside the code, integration tests in tests/. The
// projects whose tests start `dsh` or load built packages build first whatever is older than its
// sources.
const BUILT = new Set(['cli', 'mcp'])

export const projects: TestProjectInlineConfiguration[] = readdirSync(new URL('./packages', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => ({
    extends: true,
    test: {
      name: entry.name,
      root: `packages/${entry.name}`,
      include: ['src/**/*.test.ts', 'tests/**/*.spec.ts'],
      ...(BUILT.has(entry.name) ? { globalSetup: ['../../scripts/vitest-fresh-build.mjs'] } : {}),
    },
  }))

export default projects
