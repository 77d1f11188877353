import { type FsSearchOptions, type FsSearchResult, type FsTarget, type FsWalkEntryType, type FsWalkOptions, type FsWalkResult } from '@deepseek-ai/dsh-fs'
import {
  collectWalk, DEFAULT_SEARCH_MAX_FILE_BYTES, loadLinearEngine, SearchCollector, throwIfAborted, type TreeEntry, type TreeSource, visitTree,
} from '@deepseek-ai/dsh-fs/kit'
import type { Sandbox } from 'e2b'
import { statusError, toFsError } from './errors'
import { PRELUDE, sh } from './scripts'
import { runControl } from './shell'

/** Most bytes one discovery command may print; past it the result says it is incomplete. */
export const DISCOVERY_MAX_OUTPUT = 64 * 1024 * 1024

/*
 * The marks between sections and at the end start with `/`, which no record can: entry records
 * start with their type letter, and every name is printed relative to the root (`%P`, `./x` or
 * `x`). A file named `\x02` (the former end mark) ended the parse early, dropping the matches after
 * it and counting the rest as binary. Marks are also only looked for where a record starts.
 */
const SECTION = '/section'
const END = '/end'

/**
 * One command per walk or search. The sandbox only lists (and, for a search, pre-selects and sends
 * files); every rule (`.gitignore`, globs, order, matching) is applied here by the shared walker
 * and collector, so the results are the same as on any other provider. Sections, NUL-separated:
 *
 * 1. `<find %y> <size> <path>` per entry under the root, `.git` and staging pruned, links not followed;
 * 2. each `.gitignore` (path, then base64);
 * 3. search only: every file with a line containing the literal `$3` (`grep -F`, any size up to `$5`);
 * 4. search only: the same files grep judges text, each as path and base64 content.
 *
 * Without a literal (`$3` empty) every file is a candidate. `iflag=nonblock` keeps a FIFO swapped in
 * for a listed file from blocking a read. `head -c` bounds the output; the end mark tells it whole.
 */
export const DISCOVER = PRELUDE + sh`root=$1 mode=$2 literal=$3 fold=$4 maxfile=$5 maxout=$6
command -v grep >/dev/null || exit $MISSING_TOOL
s=$(stat_of "$root") || why_missing "$root"
kind_of "$s"; [ $kind = dir ] || exit $NOT_DIRECTORY
cd -- "$root" 2>/dev/null && [ -r . ] || exit $DENIED
files() { find . -mindepth 1 -regextype posix-extended \( -name .git -o -type d -regex "$STAGE_RE" \) -prune -o "$@"; }
send() {
  while IFS= read -r -d '' f; do
    printf '%s\0' "\${f#./}"; dd if="$f" iflag=nonblock status=none 2>/dev/null | base64 -w 0; printf '\0'
  done
}
flags=(-F -e "$literal")
[ "$fold" = fold ] && flags+=(-i)
{
  files -printf '%y %s %P\0'
  printf '/section\0'
  files -name .gitignore -type f -size -1048577c -print0 | send
  printf '/section\0'
  if [ "$mode" = search ]; then
    files -type f -size -$(( maxfile + 1 ))c -print0 | xargs -0r grep -lZ "\${flags[@]}" -- 2>/dev/null
    printf '/section\0'
    files -type f -size -$(( maxfile + 1 ))c -print0 | xargs -0r grep -lIZ "\${flags[@]}" -- 2>/dev/null | send
    printf '/section\0'
  fi
  printf '/end\0'
} | head -c "$maxout"
exit 0
`

const TYPES: Record<string, FsWalkEntryType> = { f: 'file', d: 'directory', l: 'symlink' }

/** What one `DISCOVER` printed, read back into a tree and the files it sent. */
export interface Discovered {
  source: TreeSource
  /** Files with a line containing the literal (search only), binary ones included. */
  candidates: Set<string>
  /** The candidates' bytes, for those grep judged text. */
  contents: Map<string, Uint8Array>
  /** False when the output hit its bound before the end mark. */
  whole: boolean
}

/** Reads `DISCOVER`'s output back, its sections counted from 0 in the order `DISCOVER` lists them. */
export function parseDiscovered(output: string): Discovered {
  const fields = output.split('\0')
  // The output ends with a NUL, so the last field is empty; a cut output ends inside a record.
  const last = fields.length - 1
  let whole = false
  const children = new Map<string, TreeEntry[]>([['', []]])
  const ignores = new Map<string, string>()
  const candidates = new Set<string>()
  const contents = new Map<string, Uint8Array>()
  let section = 0
  for (let i = 0; i < last; i++) {
    const field = fields[i]!
    // Only here, at the start of a record, can a field be a mark.
    if (field === SECTION) {
      section++
      continue
    }
    if (field === END) {
      whole = i === last - 1
      break
    }
    if (section === 0) {
      addListed(children, field)
    } else if (section === 2) {
      candidates.add(field.startsWith('./') ? field.slice(2) : field)
    } else if (section === 1 || section === 3) {
      // A record cut by the output bound has no whole content field after it: it is left out.
      if (i + 1 >= last) break
      const bytes = Buffer.from(fields[++i]!, 'base64')
      if (section === 1) ignores.set(field, bytes.toString('utf8'))
      else contents.set(field, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length))
    }
  }
  return { source: treeSource(children, ignores), candidates, contents, whole }
}

/** Adds one listing record (`<type> <size> <path>`) to its directory's entries; a malformed one is skipped. */
function addListed(children: Map<string, TreeEntry[]>, field: string): void {
  const space = field.indexOf(' ', 2)
  if (field[1] !== ' ' || space < 0) return
  const path = field.slice(space + 1)
  const slash = path.lastIndexOf('/')
  const dir = slash < 0 ? '' : path.slice(0, slash)
  const entry: TreeEntry = { name: path.slice(slash + 1), type: TYPES[field[0]!] ?? 'other' }
  if (entry.type === 'file') entry.size = Number(field.slice(2, space))
  let list = children.get(dir)
  if (list === undefined) children.set(dir, list = [])
  list.push(entry)
}

/** The walk's view of the listed tree: its directories' entries and the `.gitignore` texts sent. */
function treeSource(children: ReadonlyMap<string, TreeEntry[]>, ignores: ReadonlyMap<string, string>): TreeSource {
  return {
    list: async (dir) => children.get(dir) ?? [],
    readText: async (path) => ignores.get(path),
  }
}

async function discover(sandbox: Sandbox, target: FsTarget, args: string[], signal?: AbortSignal): Promise<Discovered> {
  const path = target.displayPath
  throwIfAborted(signal, path)
  let result
  try {
    result = await runControl(sandbox, DISCOVER, [target.targetKey, ...args, String(DISCOVERY_MAX_OUTPUT)], signal === undefined ? {} : { signal })
  } catch (error) {
    throw toFsError(error, path, signal)
  }
  if (result.exitCode !== 0) throw statusError(result, path, { DANGLING: 'FS_NOT_FOUND' })
  return parseDiscovered(result.output)
}

export async function walkSandbox(sandbox: Sandbox, target: FsTarget, options: FsWalkOptions, signal?: AbortSignal): Promise<FsWalkResult> {
  const found = await discover(sandbox, target, ['walk', '', '', '0'], signal)
  const walked = await collectWalk(found.source, options, signal)
  const result = found.whole ? walked : { ...walked, complete: false }
  if (!options.reportIgnoredMatch || options.includeIgnored || result.total > 0) return result
  // The command listed every entry, ignored or not: the same tree answers this.
  const ignored = await collectWalk(found.source, { ...options, includeIgnored: true, offset: 0, limit: 1 }, signal)
  return { ...result, ignoredMatch: ignored.total > 0 }
}

export async function searchSandbox(sandbox: Sandbox, target: FsTarget, options: FsSearchOptions, signal?: AbortSignal): Promise<FsSearchResult> {
  // Compiles the pattern (and fails FS_INVALID_PATTERN) before any request is made.
  await loadLinearEngine()
  const collector = new SearchCollector(options)
  const maxFile = options.maxFileBytes ?? DEFAULT_SEARCH_MAX_FILE_BYTES
  const found = await discover(sandbox, target, ['search', collector.literal ?? '', options.caseInsensitive ? 'fold' : '', String(maxFile)], signal)
  const result = await collect(found, collector, options, maxFile, signal)
  if (!options.reportIgnoredMatch || options.includeIgnored || result.files.length > 0) return result
  // The command sent every file holding the literal, ignored or not: the same output answers this.
  const again = { ...options, mode: 'files', limit: 1, offset: 0, includeIgnored: true } as const
  const ignored = await collect(found, new SearchCollector(again), again, maxFile, signal)
  return { ...result, ignoredMatch: ignored.files.length > 0 }
}

async function collect(found: Discovered, collector: SearchCollector, options: FsSearchOptions, maxFile: number, signal?: AbortSignal): Promise<FsSearchResult> {
  const walked = await visitTree(found.source, options, ({ entry, matched }) => {
    if (!matched || entry.type !== 'file') return
    if (entry.size !== undefined && entry.size > maxFile) {
      collector.skipped.tooLarge++
      return
    }
    if (!found.candidates.has(entry.path)) return
    const bytes = found.contents.get(entry.path)
    if (bytes !== undefined) {
      // The match runs here, on the shared linear-time engine, sliced like any provider's.
      const matching = collector.addBytes(entry.path, bytes)
      if (matching !== undefined) return matching.then(() => !collector.done)
    } else if (found.whole) collector.skipped.binary++
    else collector.skipped.unreadable++
    return !collector.done
  }, signal)
  const complete = found.whole && walked
  return collector.result(complete)
}
