/**
 * What the model reads about this tool before calling it. The tool is named only as "the dsh
 * `str_replace_editor` tool" (see `bareToolMentions` in dsh-tools): clients prefix MCP tool names,
 * and a client may have a built-in editor of its own that bypasses the policy.
 */

/** The tool's description, shown with its schema. */
export const DESCRIPTION = [
  'Custom editing tool for viewing, creating and editing files.',
  '* `view` shows a file with line numbers (`cat -n`), or lists a directory two levels deep (hidden items excluded).',
  '* `create` makes a new file with `file_text`; it never overwrites an existing file.',
  '* `str_replace` replaces `old_str` with `new_str`; `old_str` must match exactly one place in the file, whitespace included.',
  '* `insert` adds `new_str` as whole lines after line `insert_line` (0 inserts at the top).',
  '* `undo_edit` reverts the last `str_replace` or `insert` on the file, unless the file changed since.',
  'View a file before editing it; relative paths resolve against the working directory.',
].join('\n')

/** The system prompt section for this tool. */
export const PROMPT_SECTION = [
  '# The dsh `str_replace_editor` tool',
  'A client may show it with a prefix, such as mcp__dsh__str_replace_editor; an editor tool built into the client is another tool,',
  'and a file viewed with that one does not count as viewed here.',
  'View a file with the dsh `str_replace_editor` tool before you change it with `str_replace` or `insert`; the change is refused if',
  'the file changed since you last viewed it, and viewing it again is the fix. Quote `old_str` exactly, with enough surrounding',
  'lines to be unique. `create` only makes new files: to change an existing file, use `str_replace` or `insert`. `undo_edit`',
  'reverts your last change to a file only while nobody else has changed the file since.',
].join('\n')
