import type { FsSearchFile, FsSearchLine, FsSearchOptions, FsSearchResult } from './discovery-types'
import { FsError } from './errors'
import { plainLiteral, requiredLiteral } from './patterns'
import { decodeText } from './decode'
import { loadLinearEngine } from './linear'
import { compileRegex, type LineMatcher, MAX_REGEX_LINE } from './regex'
import { type TreeSource, visitTree } from './walk'

/** Files larger than this are skipped by a search, and counted, unless `maxFileBytes` says otherwise. */
export const DEFAULT_SEARCH_MAX_FILE_BYTES = 16 * 1024 * 1024

/**
 * Matching one file gives the event loop a turn after this long: the engine is linear, but a
 * 16 MiB file of lines is still hundreds of ms of work. Only scheduling depends on the clock.
 */
const MATCH_SLICE_MS = 8

/**
 * Matches files one at a time and keeps the window of results the caller asked for. Its pattern
 * runs on the linear-time engine: `await loadLinearEngine()` before building one. All providers
 * feed it, so matching, binary detection, context and paging are the same everywhere.
 */
export class SearchCollector {
  readonly options: FsSearchOptions
  readonly files: FsSearchFile[] = []
  readonly skipped = { binary: 0, tooLarge: 0, unreadable: 0, longLines: 0 }
  more = false
  readonly maxFileBytes: number
  /** A text every matching line contains: files without it are passed over unread line by line. */
  readonly literal: string | undefined
  #regex: LineMatcher
  #plain: string | undefined
  /** `foo|bar|baz` of plain texts: tested as substrings, the common pattern without one literal. */
  #alternatives: string[] | undefined
  #alternativeBytes: Buffer[] | undefined
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
    if (this.#plain === undefined && !options.caseInsensitive && options.pattern.includes('|')) {
      const parts = options.pattern.split('|')
      if (parts.every((part) => plainLiteral(part) !== undefined)) {
        this.#alternatives = parts
        this.#alternativeBytes = parts.map((part) => Buffer.from(part, 'utf8'))
      }
    }
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
   * decoded; binary or invalid UTF-8 files that could match are counted as skipped. A promise when
   * matching the file gave the event loop a turn: the caller awaits it before the next file.
   */
  addBytes(path: string, bytes: Uint8Array): void | Promise<void> {
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
    return this.addText(path, text)
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
    if (this.#alternativeBytes !== undefined) return this.#alternativeBytes.some((part) => buffer.indexOf(part) >= 0)
    return true
  }

  /** Feeds a file's text; a promise when matching it gave the event loop a turn (see `addBytes`). */
  addText(path: string, text: string): void | Promise<void> {
    if (this.more) return
    if (this.#literalBytes !== undefined && !text.includes(this.literal!)) return
    if (this.#literalFolded !== undefined && !this.#literalFolded.test(text)) return
    const lines = splitLines(text)
    const matching: number[] = []
    const next = this.#scan(lines, 0, matching)
    if (next === lines.length) return this.#record(path, lines, matching)
    return this.#resume(path, lines, matching, next)
  }

  async #resume(path: string, lines: string[], matching: number[], from: number): Promise<void> {
    while (from < lines.length) {
      await new Promise((resume) => setImmediate(resume))
      from = this.#scan(lines, from, matching)
    }
    this.#record(path, lines, matching)
  }

  /**
   * Tests lines from `from` on, adding the matching ones to `matching`, until the file ends (the
   * answer is `lines.length`), the first match in `files` mode, or the slice is spent (the answer
   * is where to go on).
   */
  #scan(lines: string[], from: number, matching: number[]): number {
    const start = performance.now()
    const files = this.options.mode === 'files'
    for (let i = from; i < lines.length; i++) {
      if (this.#test(lines[i]!)) {
        matching.push(i)
        if (files) return lines.length
      }
      if (((i & 255) === 255 || lines[i]!.length > 4096) && performance.now() - start >= MATCH_SLICE_MS) return i + 1
    }
    return lines.length
  }

  #record(path: string, lines: string[], matching: number[]): void {
    if (matching.length === 0) return
    if (this.options.mode !== 'lines') {
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
    const { longLines, ...skipped } = this.skipped
    return { files: this.files, more: this.more, complete, skipped: longLines > 0 ? this.skipped : skipped }
  }

  #test(line: string): boolean {
    if (this.#plain !== undefined) return line.includes(this.#plain)
    if (this.#alternatives !== undefined) return this.#alternatives.some((part) => line.includes(part))
    // A line without the required literal cannot match: most lines never reach the engine.
    if (this.#literalBytes !== undefined && !line.includes(this.literal!)) return false
    if (this.#literalFolded !== undefined && !this.#literalFolded.test(line)) return false
    if (line.length > MAX_REGEX_LINE) {
      this.skipped.longLines++
      return false
    }
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
  await loadLinearEngine()
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
    else if (typeof content === 'string') await collector.addText(entry.path, content)
    else await collector.addBytes(entry.path, content)
    return !collector.done
  }, signal)
  return collector.result(complete)
}
