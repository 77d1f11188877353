/** The system prompt section of the fs tools: the working rules the policy enforces, said up front. */
export const FS_PROMPT_SECTION = {
  name: 'fs-tools',
  order: 100,
  text: [
    'Files: use read, write, edit and multi_edit; find files with glob (names), grep (contents) and list (a tree).',
    '- Read a file before you edit or overwrite it; an edit or overwrite is based on the version you read.',
    '- If a file changed since you read it, the change is refused: read it again, then retry.',
    '- read shows numbered lines (number, tab, text); never copy the numbers into old_string.',
    '- Prefer edit for changes to part of a file; use write to create a file or replace all of it.',
    '- grep and glob results are not a read: read a file before you edit it.',
  ].join('\n'),
}
