/*
 * The vocabulary of discovery (`FileSystem.walk`, `FileSystem.search`) and of `editTextMany`.
 * Kept apart from `types.ts`: these shapes belong to one optional capability.
 */

/** What a walk met: symlinks are reported as such and never followed. */
export type FsWalkEntryType = 'file' | 'directory' | 'symlink' | 'other'

export interface FsWalkEntry {
  /** Relative to the walk's root, `/`-separated, never empty. */
  path: string
  type: FsWalkEntryType
  /** Bytes, for regular files when the backend knows it without an extra request. */
  size?: number
}

/** What both walks and searches filter on. */
export interface FsTreeFilter {
  /**
   * Globs (picomatch syntax, `dot` files included) a non-directory entry's relative path must match.
   * With `matchBase`, a glob without a `/` matches the name at any depth (`*.ts` = `**\/*.ts`).
   * Directories are walked but not reported while a glob is given.
   */
  glob?: readonly string[]
  matchBase?: boolean
  /** Extra patterns in `.gitignore` syntax, applied at the root even when `includeIgnored` is set. */
  exclude?: readonly string[]
  /** Report what `.gitignore` files exclude; `.git` is skipped either way. Default false. */
  includeIgnored?: boolean
  /** Entries this many levels below the root at most (1 = the root's own entries). Default unlimited. */
  maxDepth?: number
  /** Stop after looking at this many entries; the result then says it is incomplete. Default 1,000,000. */
  maxVisited?: number
}

export interface FsWalkOptions extends FsTreeFilter {
  /** Reported entries to pass over first (the continuation of an earlier, cut walk). */
  offset?: number
  /** Most entries reported. */
  limit: number
  /** Report the size of every file (a backend may need a stat per file for it). Default false. */
  sizes?: boolean
  /**
   * Ask, for a walk that reports nothing with ignored entries left out, whether ignored entries
   * match (`FsWalkResult.ignoredMatch`). A provider that can tell without another request says so;
   * one that cannot leaves the field out, and the caller walks again.
   */
  reportIgnoredMatch?: boolean
}

export interface FsWalkResult {
  /** In walk order: depth first, each directory's entries sorted by name (code units). */
  entries: FsWalkEntry[]
  /** Every matching entry the walk met, reported or not (exact when `complete`). */
  total: number
  /** False when `maxVisited` stopped the walk before the end of the tree. */
  complete: boolean
  /** Only with `reportIgnoredMatch`, when `total` is 0: whether an entry `.gitignore` leaves out matches. */
  ignoredMatch?: boolean
}

export type FsSearchMode = 'files' | 'lines' | 'count'

export interface FsSearchOptions extends FsTreeFilter {
  /**
   * A regular expression in JavaScript syntax without lookaround or backreferences, matched
   * against each line (without its line ending) in linear time (RE2 semantics).
   */
  pattern: string
  caseInsensitive?: boolean
  /** `files`: the names of files with a match; `lines`: the matching lines; `count`: matches per file. */
  mode: FsSearchMode
  /** Lines of context before and after each matching line (`lines` mode). */
  context?: number
  /** Results to pass over first: files in `files`/`count` mode, matching lines in `lines` mode. */
  offset?: number
  /** Most results (same unit as `offset`). */
  limit: number
  /** Files larger than this are not searched (counted in `skipped.tooLarge`). Default 16 MiB. */
  maxFileBytes?: number
  /**
   * Ask, for a search that finds nothing with ignored files left out, whether ignored files hold a
   * match (`FsSearchResult.ignoredMatch`). A provider that can tell without another request says
   * so; one that cannot leaves the field out, and the caller searches again.
   */
  reportIgnoredMatch?: boolean
}

export interface FsSearchLine {
  /** 1-based. */
  line: number
  text: string
  /** False for a context line. */
  match: boolean
}

export interface FsSearchFile {
  path: string
  /** Matching lines in the file (in `files` mode: 1, the search stops at the first). */
  count: number
  /** `lines` mode only: the matching lines in the reported window, with their context, in order. */
  lines?: FsSearchLine[]
}

export interface FsSearchResult {
  files: FsSearchFile[]
  /** More results exist past `offset + limit` (the search stopped at the first one beyond). */
  more: boolean
  /** False when `maxVisited` stopped the walk, or the backend could not search everything. */
  complete: boolean
  /**
   * Files not searched: `binary` counts binary or non-UTF-8 files that contain the pattern's
   * literal part (others cannot match and are passed over uncounted), `tooLarge` those above
   * `maxFileBytes`, `unreadable` those that vanished or could not be opened. `longLines` counts
   * lines longer than `MAX_REGEX_LINE` (1 MiB) that a regular expression was not run on (a
   * plain-text pattern searches every line); absent means none.
   */
  skipped: { binary: number; tooLarge: number; unreadable: number; longLines?: number }
  /** Only with `reportIgnoredMatch`, when nothing was found: whether a file `.gitignore` leaves out has a match. */
  ignoredMatch?: boolean
}
