import type { Context } from 'cordis'
import { z } from 'zod'
import { SystemPrompt } from './prompt'
import { ToolRegistry } from './registry'

export * from './types'
export { ToolError, type ToolErrorCode, textResult, errorResult, resultFromError, runtimeRefused } from './errors'
export {
  type ArgumentIssue, DATA_WORDS, type RetryArgument, runtimeCode, type RuntimeRefusal, type RuntimeWords, type ShownValue, type UnknownArgument,
} from './refusal'
export { type ForeignCall } from './foreign'
export { ARGUMENT_SYNONYMS, CLIENT_CONTROL_ARGUMENTS, closestName, parseArguments } from './arguments'
export { bareToolMentions } from './mentions'
export { pinServices } from './pinned'
export { toInputSchema } from './schema'
export { ToolRegistry } from './registry'
export { SystemPrompt } from './prompt'

export const name = 'dsh-tools'

/** No settings: an entry's `config:` with any key is refused, naming the key. */
export const Config = z.object({}).strict().prefault({})

/** Provides `ctx.tools` and `ctx.systemPrompt`; both go away when this plugin is disposed. */
export function apply(ctx: Context): void {
  ctx.plugin(ToolRegistry)
  ctx.plugin(SystemPrompt)
}

export default { name, Config, apply }
