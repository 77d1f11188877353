import type { FsSearchFile, FsSearchLine, FsSearchOptions, FsSearchResult } from './discovery-types'
import { FsError } from './errors'
import { compileRegex, plainLiteral, requiredLiteral } from './patterns'
import { decodeText } from './decode'
import { type TreeSource, visitTree } from './walk'

export const DEFAULT_SEARCH_MAX_FILE_BYTES = 16 * 1024 * 1024

/**
 * Matches files one at a time and keeps the window of results the caller asked for. All providers
 * feed it, so matching, binary detection, context and paging are the same everywhere.
 */
export class SearchCollector {
  readonly options: FsSearchOptions
  readonly files: FsSearchFile[] = []
  readonly skipped = { binary: 0, tooLarge: 0, unreadable: 0 }
  more = false
  readonly maxFileBytes: number
  /** A text every matching line contains: files without it are passed over unread line by line. */
  readonly literal: string | undefined
  #regex: RegExp
  #plain: string | undefined
  #literalBytes: Buffer | undefined
  #literalFolded: RegExp | undefined
  #seen = 0
  #taken = 0
  #offset: number

  constructor(options: FsSearchOptions) {
    this.options = options
    this.#regex = compileRegex(options.pattern, options.caseInsensitive)
    this.#plain = options.caseInsensitive ? undefined : plainLiteral(options.pattern)
    this.literal = requiredLiteral(options.pattern, options.caseInsensitive)
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_SEARCH_MAX_FILE_BYTES
    this.#offset = options.offset ?? 0
    if (this.literal !== undefined) {
      if (!options.caseInsensitive) this.#literalBytes = Buffer.from(this.literal, 'utf8')
      // `requiredLiteral` gives an ignoring-case literal only in printable ASCII, where JavaScript's
      // `i` folds exactly as ASCII does; UTF-8 never puts an ASCII byte inside a longer character,
      // so the test can run on the bytes read as Latin-1 (one character per byte).
      else this.#literalFolded = new RegExp(this.literal.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&'), 'i')
    }
  }

  /** True once the window is full and one result beyond it was seen: the caller stops feeding. */
  get done(): boolean {
    return this.more
  }

  /**
   * Feeds a file's raw bytes. A file without the required literal is passed over before it is
   * decoded; binary or invalid UTF-8 files that could match are counted as skipped.
   */
  addBytes(path: string, bytes: Uint8Array): void {
    if (this.more) return
    if (bytes.length > this.maxFileBytes) {
      this.skipped.tooLarge++
      return
    }
    if (!this.mayMatch(bytes)) return
    let text: string
    try {
      text = decodeText(bytes, path).text
    } catch (error) {
      if (!FsError.is(error, 'FS_NOT_TEXT')) throw error
      this.skipped.binary++
      return
    }
    this.addText(path, text)
  }

  /**
   * False when `bytes` lack the pattern's required literal, so no line of the file can match: the
   * test a backend may run before keeping a file's bytes, or on a buffer it reuses. The collector
   * never keeps `bytes` past `addBytes`.
   */
  mayMatch(bytes: Uint8Array): boolean {
    const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)
    if (this.#literalBytes !== undefined) return buffer.indexOf(this.#literalBytes) >= 0
    if (this.#literalFolded !== undefined) return this.#literalFolded.test(buffer.toString('latin1'))
    return true
  }

  addText(path: string, text: string): void {
    if (this.more) return
    if (this.#literalBytes !== undefined && !text.includes(this.literal!)) return
    if (this.#literalFolded !== undefined && !this.#literalFolded.test(text)) return
    const mode = this.options.mode
    const lines = splitLines(text)
    const matching: number[] = []
    for (let i = 0; i < lines.length; i++) {
      if (!this.#test(lines[i]!)) continue
      matching.push(i)
      if (mode === 'files') break
    }
    if (matching.length === 0) return
    if (mode !== 'lines') {
      if (this.#seen++ < this.#offset) return
      if (this.files.length >= this.options.limit) {
        this.more = true
        return
      }
      this.files.push({ path, count: matching.length })
      return
    }
    // Lines mode: the unit is a matching line; keep those inside the window, with their context.
    const kept: number[] = []
    for (const index of matching) {
      if (this.#seen++ < this.#offset) continue
      if (this.#taken >= this.options.limit) {
        this.more = true
        break
      }
      kept.push(index)
      this.#taken++
    }
    if (kept.length === 0) return
    this.files.push({ path, count: matching.length, lines: withContext(lines, kept, new Set(matching), this.options.context ?? 0) })
  }

  result(complete: boolean): FsSearchResult {
    return { files: this.files, more: this.more, complete, skipped: this.skipped }
  }

  #test(line: string): boolean {
    if (this.#plain !== undefined) return line.includes(this.#plain)
    return this.#regex.test(line)
  }
}

/** Lines without their endings; a final line feed does not start another line. */
function splitLines(text: string): string[] {
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  for (let i = 0; i < lines.length; i++) if (lines[i]!.endsWith('\r')) lines[i] = lines[i]!.slice(0, -1)
  return lines
}

function withContext(lines: string[], kept: number[], matching: Set<number>, context: number): FsSearchLine[] {
  const shown: FsSearchLine[] = []
  const inWindow = new Set(kept)
  let last = -1
  for (const index of kept) {
    const from = Math.max(last + 1, index - context)
    const to = Math.min(lines.length - 1, index + context)
    for (let i = from; i <= to; i++) {
      // A line past the window's last match is context even if it matches (it is reported later).
      const match = i === index || (matching.has(i) && inWindow.has(i))
      shown.push({ line: i + 1, text: lines[i]!, match })
    }
    last = Math.max(last, to)
  }
  return shown
}

/** How a search gets a file: raw bytes, already decoded text, or `undefined` when it cannot be read. */
export type SearchRead = (path: string, size: number | undefined, signal?: AbortSignal) => Promise<Uint8Array | string | undefined>

/**
 * A search over any tree: walk it with the shared rules, read each regular file through `read`, and
 * collect. The default of `FileSystem.search`, and what a provider with a fast listing reuses. A
 * read that fails `FS_NOT_TEXT` counts as binary; any other `FsError` as unreadable.
 */
export async function searchTree(source: TreeSource, read: SearchRead, options: FsSearchOptions, signal?: AbortSignal): Promise<FsSearchResult> {
  const collector = new SearchCollector(options)
  const complete = await visitTree(source, options, async ({ entry, matched }) => {
    if (!matched || entry.type !== 'file') return
    if (entry.size !== undefined && entry.size > collector.maxFileBytes) {
      collector.skipped.tooLarge++
      return
    }
    let content: Uint8Array | string | undefined
    try {
      content = await read(entry.path, entry.size, signal)
    } catch (error) {
      if (!FsError.is(error) || error.code === 'FS_ABORTED') throw error
      if (error.code === 'FS_NOT_TEXT') collector.skipped.binary++
      else collector.skipped.unreadable++
      return
    }
    if (content === undefined) collector.skipped.unreadable++
    else if (typeof content === 'string') collector.addText(entry.path, content)
    else collector.addBytes(entry.path, content)
    return !collector.done
  }, signal)
  return collector.result(complete)
}
