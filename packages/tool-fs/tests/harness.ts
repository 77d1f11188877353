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

/**
 * A transcript of what the model sees: `call` records each tool call, its status and its text;
 * `outside` records a change made outside the agent, then makes it.
 */
export function transcriptOf(s: Stack): { lines: string[]; outside(what: string, act: () => Promise<unknown>): Promise<void>; call(name: string, args: Record<string, unknown>): Promise<void> } {
  const lines: string[] = []
  return {
    lines,
    async outside(what, act) {
      lines.push(`--- outside the agent: ${what}`, '')
      await act()
    },
    async call(name, args) {
      const result = await s.call(name, args)
      const status = result.isError ? `error ${result.error?.code ?? ''}`.trim() : 'ok'
      lines.push(`>>> ${name} ${JSON.stringify(args)}`, `<<< ${status}`, result.content.map((part) => part.text).join(''), '')
    },
  }
}
