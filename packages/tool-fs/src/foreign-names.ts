/**
 * What other harnesses call the tools of this family. A model trained on them calls `read_file` or
 * `Write` out of habit; the registry answers such a call with the dsh tool and the arguments
 * renamed, so the next call works. Names only: what the arguments are called is the registry's table.
 */
export const FOREIGN_NAMES = {
  read: ['read_file', 'view_file', 'open_file', 'cat', 'read_text_file', 'readFile', 'view'],
  write: ['write_file', 'create_file', 'save_file', 'write_to_file', 'writeFile'],
  edit: ['edit_file', 'replace', 'replace_in_file', 'search_replace', 'replace_string_in_file', 'apply_edit', 'str_replace'],
  multi_edit: ['multiedit', 'edit_files', 'multi_replace'],
  list: ['ls', 'list_dir', 'list_directory', 'list_files', 'dir'],
  glob: ['find_files', 'file_search', 'find', 'glob_files'],
  grep: ['search', 'search_files', 'grep_search', 'rg', 'ripgrep', 'search_file_content', 'codebase_search'],
} as const satisfies Record<string, readonly string[]>
