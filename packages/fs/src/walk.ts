import { throwIfAborted } from './errors'
import type { FsTreeFilter, FsWalkEntry, FsWalkEntryType, FsWalkOptions, FsWalkResult } from './discovery-types'
import { loadLinearEngine } from './linear'
import { compileGlobs, IgnoreStack } from './patterns'

/** One entry a `TreeSource` lists: its name, its type (a symlink as `symlink`) and, when known, its size. */
export interface TreeEntry {
  name: string
  type: FsWalkEntryType
  size?: number
}

/**
 * Where a walk gets its tree from: the only part a backend supplies. Every rule (what is skipped,
 * ignored, matched, in which order) is `walkTree`'s, so all providers agree on them.
 */
export interface TreeSource {
  /**
   * The entries of a directory (`''` = the root), without following symlinks: a symlink is
   * `symlink`, whatever it points to. `undefined` when the directory cannot be listed (it vanished
   * or is unreadable): the walk goes on without it.
   */
  list(dir: string, signal?: AbortSignal): Promise<readonly TreeEntry[] | undefined>
  /** The text of the regular file at `path` (a `.gitignore`), or `undefined` when it cannot be read. */
  readText(path: string, signal?: AbortSignal): Promise<string | undefined>
  /**
   * The walk is done with directory `dir` (everything below it visited, or the walk ended): a
   * source that holds a listed directory open until then (to open its entries inside it) lets go.
   */
  leave?(dir: string): void
}

export const DEFAULT_MAX_VISITED = 1_000_000

/** A walk gives the event loop a turn after this long without one (scheduling only). */
const WALK_SLICE_MS = 8

/** One entry met by the walk, and whether it passes the filter's globs. */
export interface WalkStep {
  entry: FsWalkEntry
  matched: boolean
}

const byName = (a: TreeEntry, b: TreeEntry) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

/**
 * What a visitor answers for one step: `false` stops the walk. A visitor that returns a promise is
 * awaited; one that answers synchronously costs no await, which is most of a large walk.
 */
export type WalkVisitor = (step: WalkStep) => boolean | void | Promise<boolean | void>

/**
 * Visits every entry under the root that the filter lets through, depth first, each directory's
 * entries in name order. `.git` is never entered; `.gitignore` rules apply unless
 * `includeIgnored`; symlinks are reported, never followed, so a walk cannot leave the root
 * through one. Resolves to false when `maxVisited` stopped it (a visitor's stop resolves true).
 */
export async function visitTree(source: TreeSource, filter: FsTreeFilter, visit: WalkVisitor, signal?: AbortSignal): Promise<boolean> {
  await loadLinearEngine()
  const matches = filter.glob === undefined || filter.glob.length === 0 ? undefined : compileGlobs(filter.glob, filter.matchBase)
  let rules = IgnoreStack.empty()
  if (filter.exclude !== undefined && filter.exclude.length > 0) rules = rules.with('', filter.exclude, 'the ignore patterns')
  // Explicit stack of directories being listed; a child directory is pushed when it is met.
  const pending: Frame[] = [{ dir: '', depth: 0, rules, next: 0 }]
  try {
    return await walkFrames(source, filter, visit, pending, matches, signal)
  } finally {
    // A walk stopped early (a visitor's stop, an abort, a failure) leaves frames behind.
    if (source.leave !== undefined) for (let i = pending.length - 1; i >= 0; i--) source.leave(pending[i]!.dir)
  }
}

interface Frame {
  dir: string
  depth: number
  rules: IgnoreStack
  entries?: readonly TreeEntry[]
  next: number
}

async function walkFrames(
  source: TreeSource, filter: FsTreeFilter, visit: WalkVisitor, pending: Frame[], matches: ((path: string) => boolean) | undefined, signal?: AbortSignal,
): Promise<boolean> {
  const maxDepth = filter.maxDepth ?? Infinity
  const maxVisited = filter.maxVisited ?? DEFAULT_MAX_VISITED
  let visited = 0
  let slice = performance.now()
  while (pending.length > 0) {
    // Ignore rules and globs cost time per entry: a long directory still lets the loop run.
    if ((visited & 63) === 0 && performance.now() - slice >= WALK_SLICE_MS) {
      await new Promise((resume) => setImmediate(resume))
      slice = performance.now()
    }
    const frame = pending.at(-1)!
    frame.entries ??= await openFrame(source, frame, filter.includeIgnored === true, signal)
    if (frame.next >= frame.entries.length) {
      pending.pop()
      source.leave?.(frame.dir)
      continue
    }
    const item = frame.entries[frame.next++]!
    if (item.name === '.git') continue
    if (++visited > maxVisited) return false
    const path = join(frame.dir, item.name)
    const directory = item.type === 'directory'
    if (frame.rules.size > 0 && frame.rules.ignores(path, directory)) continue
    const depth = frame.depth + 1
    const entry = walkEntry(path, item)
    if (directory) {
      if (depth < maxDepth) pending.push({ dir: path, depth, rules: frame.rules, next: 0 })
      if (matches !== undefined) continue
    }
    let answer = visit({ entry, matched: directory || matches === undefined || matches(path) })
    if (answer instanceof Promise) answer = await answer
    if (answer === false) return true
  }
  return true
}

/**
 * Lists `frame`'s directory, in name order, and adds its `.gitignore` rules to the frame's (unless
 * ignored files are wanted). Returns the entries.
 */
async function openFrame(source: TreeSource, frame: Frame, includeIgnored: boolean, signal?: AbortSignal): Promise<readonly TreeEntry[]> {
  throwIfAborted(signal)
  const listed = await source.list(frame.dir, signal)
  const entries = listed === undefined ? [] : sortedByName(listed)
  if (!includeIgnored && entries.some((entry) => entry.name === '.gitignore' && entry.type === 'file')) {
    const text = await source.readText(join(frame.dir, '.gitignore'), signal)
    if (text !== undefined) frame.rules = frame.rules.with(frame.dir, text)
  }
  return entries
}

/** What a visitor sees of `item`, met at `path`. */
function walkEntry(path: string, item: TreeEntry): FsWalkEntry {
  const entry: FsWalkEntry = { path, type: item.type }
  if (item.size !== undefined) entry.size = item.size
  return entry
}

/**
 * The entries in name order. A listing often comes sorted already (libuv sorts `readdir`'s names):
 * then it is used as it is, with no copy and no sort.
 */
function sortedByName(listed: readonly TreeEntry[]): readonly TreeEntry[] {
  for (let i = 1; i < listed.length; i++) if (byName(listed[i - 1]!, listed[i]!) > 0) return [...listed].sort(byName)
  return listed
}

function join(dir: string, name: string): string {
  return dir === '' ? name : `${dir}/${name}`
}

/** A bounded walk: the window `[offset, offset + limit)` of the matching entries, and their total. */
export async function collectWalk(source: TreeSource, options: FsWalkOptions, signal?: AbortSignal): Promise<FsWalkResult> {
  const offset = options.offset ?? 0
  const entries: FsWalkEntry[] = []
  let total = 0
  const complete = await visitTree(source, options, ({ entry, matched }) => {
    if (!matched) return
    if (total >= offset && entries.length < options.limit) entries.push(entry)
    total++
  }, signal)
  return { entries, total, complete }
}
