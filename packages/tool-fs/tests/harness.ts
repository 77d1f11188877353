import { stack as assembled, type Stack, type StackOptions } from '@deepseek-ai/dsh-test-kit'

export type { Stack } from '@deepseek-ai/dsh-test-kit'

export interface ToolFsStackOptions {
  policy: boolean
  /** Contain the provider in the temp directory, as the shipped config does. */
  rooted?: boolean
  config?: StackOptions['toolFs']
  /** The policy's seen rule (`seenBeforeReplace`, on in the shipped config). */
  seenRule?: boolean
}

/** The kit's stack with this family alone (these tests pin its tool list), on the local disk. */
export function stack(options: ToolFsStackOptions): Promise<Stack> {
  return assembled({
    tools: ['tool-fs'], policy: options.policy, rooted: options.rooted === true, toolFs: options.config ?? {},
    policyConfig: { seenBeforeReplace: options.seenRule === true },
  })
}
