import type { Family } from './report'

/*
 * Refusals both families give, each in one function with both families' words, so that a
 * rewording reaches `read`/`edit` and the editor's commands at once.
 */

/** A text file behind a symbolic link the session never read through: most often a file swapped for a link since the read. */
export function linkedText(path: string, family: Family): string {
  const lead = `${path} is a symbolic link, so the change would land in the file it points to, `
  return family === 'fs'
    ? `${lead}which has not been read in this session (the dsh \`read\` tool shows it through the link); read the file, then retry`
    : `${lead}which you have not viewed (the \`view\` command shows it through the link). View the file, then retry.`
}

/** A change whose old and new text are the same; `step` names the edit of a multi_edit. */
export function identicalText(family: Family, step?: number): string {
  if (family === 'editor') return 'No replacement was performed: `old_str` and `new_str` are the same, so the file would not change.'
  if (step === undefined) return 'old_string and new_string are identical, so this change would do nothing.'
  return `edits[${step}]: old_string and new_string are identical, so the edit would change nothing; remove it or change its new_string. Nothing was written.`
}
