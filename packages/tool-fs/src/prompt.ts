/**
 * The system prompt section of the fs tools: the working rules the policy enforces, said up front.
 * Tools are named only as "the dsh `name` tool" (see `bareToolMentions` in dsh-tools): clients
 * prefix MCP tool names, and some have built-in tools with the same bare names that bypass the policy.
 */
export const FS_PROMPT_SECTION = {
  name: 'fs-tools',
  order: 100,
  text: [
    'Files: use the dsh `read`, `write`, `edit` and `multi_edit` tools; to find files, use the dsh `glob`, `grep` and `list` tools '
      + '(names, contents, a tree). A client may show them with a prefix, such as mcp__dsh__read, '
      + 'mcp_dsh_read or dsh_read. Tools of the client with the same short names are other tools: a file seen through them '
      + 'does not count as seen by the dsh tools.',
    '- Show a file with the dsh `read` tool before you change or replace it; every change is based on the version it showed you.',
    '- If a file changed since then, the change is refused: show it again with the dsh `read` tool, then retry.',
    '- The dsh `read` tool numbers the lines (number, tab, text) and adds notes in brackets; never copy the numbers or the notes into old_string, new_string or content.',
    '- Prefer the dsh `edit` tool for changes to part of a file; use the dsh `write` tool to create a file or replace all of it (after showing all of it).',
    '- Results of the dsh `grep` and `glob` tools do not count as showing a file: show it with the dsh `read` tool before you change it.',
  ].join('\n'),
}

/** Added when `apply_patch` is registered: the one rule that differs from Codex, where a patch needs no read. */
export const APPLY_PATCH_PROMPT_SECTION = {
  name: 'fs-apply-patch',
  order: 101,
  text: '- The dsh `apply_patch` tool changes several files at once with a patch (all of it or none). Show every file it updates or '
    + 'deletes with the dsh `read` tool first; its hunks must match the file exactly, whitespace included.',
}
