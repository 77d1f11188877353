import { coreOf } from './core'
import type { LocalDisk } from './local-disk'

/**
 * Test instrumentation, not exported from the package: `hook` is awaited after each write's
 * content is staged and before its publication point, so a test can act as a competing process in
 * exactly that window. `undefined` removes it.
 */
export function beforeEachPublish(disk: LocalDisk, hook: ((destination: string) => Promise<void>) | undefined): void {
  coreOf(disk).beforePublish = hook
}
