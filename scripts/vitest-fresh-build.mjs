// Global setup of the test projects that start `dsh` or load the built packages: bring every
// `lib/` up to date with its sources first (issue 23, item 7: a test must not pass on an old build).
import { buildIfStale } from './fresh-build.mjs'

export default function setup() {
  buildIfStale('vitest')
}
