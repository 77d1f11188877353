import { FS_TEXT_ENCODINGS } from '@deepseek-ai/dsh-fs'
import { ENCODING_ARGUMENT } from '@deepseek-ai/dsh-tool-text'
import { z } from 'zod'

export const COMMANDS = ['view', 'create', 'str_replace', 'insert', 'undo_edit'] as const

/**
 * The arguments of Anthropic's text editor tool, with their names. Per-command requirements and
 * ranges are checked by the tool itself, so that the model gets the messages it knows for them.
 */
export const InputSchema = z.object({
  command: z.enum(COMMANDS).describe('The command to run: `view`, `create`, `str_replace`, `insert` or `undo_edit`.'),
  path: z.string().describe('Path to the file or directory, e.g. `/repo/file.py` or `/repo`; relative paths resolve against the working directory.'),
  file_text: z.string().optional().describe('Required for `create`: the content of the file to be created.'),
  old_str: z.string().optional().describe('Required for `str_replace`: the exact text in the file to replace; it must occur once.'),
  new_str: z.string().optional()
    .describe('For `str_replace`: the replacement text (omitted = delete `old_str`). Required for `insert`: the text to insert.'),
  insert_line: z.number().int().optional().describe('Required for `insert`: `new_str` is inserted AFTER this line (0 = at the top).'),
  view_range: z.array(z.number().int()).optional()
    .describe('Optional for `view` of a file: [start, end], 1-based and inclusive; [start, -1] shows from start to the end.'),
})

export type Input = z.output<typeof InputSchema>

/** The `encoding` argument, added to the schema when the configuration turns encodings on (`withEncodings`). */
export const EncodingArgument = z.enum(FS_TEXT_ENCODINGS).optional().describe(ENCODING_ARGUMENT)

export const Config = z.object({
  viewLimit: z.number().int().positive().default(2000).describe('Most lines one `view` shows.'),
  viewMaxLineLength: z.number().int().positive().default(2000).describe('Characters shown of one line; the rest is marked as cut. A one-line view_range shows its line up to viewMaxBytes.'),
  viewMaxBytes: z.number().int().positive().default(50 * 1024).describe('Most UTF-8 bytes of numbered text one `view` shows.'),
  listLimit: z.number().int().positive().default(1000).describe('Most entries a directory `view` lists.'),
  undoDepth: z.number().int().nonnegative().default(10).describe('Edits per file that `undo_edit` can revert.'),
  undoMaxBytes: z.number().int().nonnegative().default(8 * 1024 * 1024).describe('Bytes of previous texts kept for undo, per session.'),
  detectEncodings: z.boolean().default(false)
    .describe('A file that is not UTF-8 is decoded from its byte order mark (UTF-16) or by an encoding detector with a confidence bound, and edited byte-exact in its encoding; off, it is refused as not text.'),
  defaultEncoding: z.enum(FS_TEXT_ENCODINGS).optional()
    .describe('The encoding assumed for a file that is neither UTF-8 nor BOM-marked when the detector cannot decide (or detection is off).'),
  staleRefusalObserves: z.boolean().default(false)
    .describe('A `str_replace` or `insert` refused as stale shows the current text and records that version as viewed (or the file as absent), so the retry can succeed at once.'),
}).strict().prefault({})

export type EditorConfig = z.output<typeof Config>
