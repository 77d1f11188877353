import { stack, type Session, type Stack } from '@deepseek-ai/dsh-test-kit'
import type { ToolResult } from '@deepseek-ai/dsh-tools'
import type * as editorModule from '../src/index'

export { textOf } from '@deepseek-ai/dsh-test-kit'
export type { Session } from '@deepseek-ai/dsh-test-kit'

/** The kit's stack with this tool alone, called by its arguments only. */
export interface EditorFixture extends Omit<Stack, 'call' | 'ok'> {
  at(name: string): string
  call(args: Record<string, unknown>, session?: Session | null): Promise<ToolResult>
  /** Text of a successful call; throws with the model text when the call failed. */
  ok(args: Record<string, unknown>, session?: Session | null): Promise<string>
}

/** A real `LocalFileSystem` on a fresh temp dir, the tools runtime, this plugin, and (unless bare) the policy. */
export async function editorFixture(options: { policy?: boolean; rooted?: boolean; config?: editorModule.EditorConfig | Record<string, unknown> } = {}): Promise<EditorFixture> {
  const s = await stack({ tools: ['str-replace-editor'], policy: options.policy !== false, rooted: options.rooted === true, editor: options.config ?? {} })
  return {
    ...s,
    at: s.path,
    call: (args, who) => s.call('str_replace_editor', args, who),
    ok: (args, who) => s.ok('str_replace_editor', args, who),
  }
}
