import { type Stack, stack } from '@deepseek-ai/dsh-test-kit'
import type { ToolResult } from '@deepseek-ai/dsh-tools'

export type RootedStack = Stack

/** The assembled stack as shipped (LocalFileSystem with `root`, tools, policy, tool-fs) on a fresh temp dir; `outside` is its sibling. */
export function rootedStack(options: { policy?: boolean } = {}): Promise<RootedStack> {
  return stack({ rooted: true, policy: options.policy !== false, tools: ['tool-fs'] })
}

/** The text of a result. */
export function textOf(result: ToolResult): string {
  return result.content.map((part) => ('text' in part ? part.text : '')).join('')
}

/** Every code a tool call may legitimately fail with: the fs contract's and the tool runtime's own. */
export const TYPED_CODES = new Set([
  'FS_NOT_FOUND', 'FS_NOT_DIRECTORY', 'FS_NOT_REGULAR_FILE', 'FS_NOT_TEXT', 'FS_TOO_LARGE', 'FS_PERMISSION_DENIED',
  'FS_OUTSIDE_ROOT', 'FS_INVALID_PATH', 'FS_IO_ERROR', 'FS_STALE_VERSION', 'FS_NOT_OBSERVED', 'FS_EDIT_NOT_FOUND',
  'FS_AMBIGUOUS_EDIT', 'FS_ABORTED', 'INVALID_ARGUMENTS', 'UNKNOWN_TOOL',
])
