import type {} from '@deepseek-ai/dsh-fs'
import { defineTool, pinServices } from '@deepseek-ai/dsh-tools'
import { reachOf, RUNTIME_WORDS, withEncodings } from '@deepseek-ai/dsh-tool-text'
import type { Context } from 'cordis'
import type { z } from 'zod'
import { create, insert, strReplace } from './edit'
import { DESCRIPTION, PROMPT_SECTION } from './prompt'
import { renderReply } from './render'
import { Editor, providerRefusal } from './runtime'
import { COMMANDS, Config, EncodingArgument, InputSchema } from './schema'
import { undoEdit } from './undo'
import { view } from './view'

export { Config, InputSchema, COMMANDS, type EditorConfig, type Input } from './schema'
export { EditHistory, EditHistories, type HistoryLimits } from './history'
// Re-exported so that the `fs/*` event augmentation travels with this package's types.
export type { FsObservation } from '@deepseek-ai/dsh-fs'

export const name = 'dsh-tool-str-replace-editor'
export const inject = ['fs', 'tools', 'systemPrompt']

const commands = { view, create, str_replace: strReplace, insert, undo_edit: undoEdit }

/** Registers `str_replace_editor` and its prompt section; undo history lives as long as the plugin. */
export function apply(ctx: Context, config: z.input<typeof Config>): void {
  // What the calls use, read once (the registration stays on `ctx`, so it goes with this plugin).
  const options = Config.parse(config)
  const editor = new Editor(pinServices(ctx, ['fs']), options)
  ctx.effect(() => () => editor.pdfThreads.dispose(), 'str_replace_editor: PDF threads')
  const reach = reachOf(options)
  // The runtime's own refusals (an unknown tool, invalid arguments) in dsh-tool-text's words, like every other.
  ctx.tools.useWords(RUNTIME_WORDS)
  // Each call runs under its encoding choice (argument, configuration); a `view` names a legacy encoding.
  ctx.tools.register(withEncodings(defineTool({
    name: 'str_replace_editor',
    title: 'Text editor',
    description: DESCRIPTION,
    // One tool for viewing and changing: the hints must hold for its most powerful command, so it is
    // neither read-only nor idempotent (`insert` twice inserts twice) and it replaces existing text.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    inputSchema: InputSchema,
    // Its commands as tools, and the names other harnesses give this tool.
    foreignNames: [
      ...COMMANDS.map((command) => ({ name: command, args: { command } })),
      'text_editor', 'str_replace_based_edit_tool', 'str_replace_editor_tool', 'editor',
    ],
    // Each command returns data (a reply or a refusal); a provider failure it does not word itself keeps the provider's account.
    execute: (input, exec) => commands[input.command](editor, input, exec).catch(providerRefusal),
    render: (data) => renderReply(data, editor.window, reach),
  }), options, { argument: EncodingArgument, names: (input) => input.command === 'view' }))
  ctx.systemPrompt.section({ name: 'str_replace_editor', order: 40, text: PROMPT_SECTION })
}

export default { name, inject, Config, apply }
