import type { FsVersion } from '@deepseek-ai/dsh-fs'

/** A line start found by an earlier scan: line `line` begins at byte `byte` of the stream. */
export interface Checkpoint {
  line: number
  byte: number
}

export interface LineIndexOptions {
  /** Files remembered at once; the least recently used goes first. Default 32. */
  maxFiles?: number
  /** Checkpoints kept per file; past it every other one is dropped and the spacing doubles. Default 4096. */
  maxCheckpoints?: number
  /** Lines between the checkpoints a scan leaves behind, to begin with. Default 1000. */
  stride?: number
}

interface FileLines {
  version: FsVersion
  /** Ascending line numbers, and the byte each of them starts at. */
  lines: number[]
  bytes: number[]
  stride: number
}

const START: Checkpoint = { line: 1, byte: 0 }

/**
 * Where lines start in the files a reader has scanned, so that paging through a large file costs
 * one scan and not one per page. It knows one version per file: a lookup or a record at another
 * version forgets the old one. Memory is bounded by `maxFiles × maxCheckpoints` pairs of numbers.
 * A checkpoint is only as true as the scan that recorded it: record only bytes that were
 * validated and streamed at that version.
 */
export class LineIndex {
  readonly #files = new Map<string, FileLines>()
  readonly #maxFiles: number
  readonly #maxCheckpoints: number
  readonly #stride: number

  constructor(options: LineIndexOptions = {}) {
    this.#maxFiles = options.maxFiles ?? 32
    this.#maxCheckpoints = Math.max(2, options.maxCheckpoints ?? 4096)
    this.#stride = Math.max(1, options.stride ?? 1000)
  }

  /** The latest known line start at or before `line` (line 1 at byte 0 when nothing is known). */
  nearest(key: string, version: FsVersion, line: number): Checkpoint {
    const file = this.#current(key, version)
    if (file === undefined) return START
    const at = lastAtOrBefore(file.lines, line)
    return at < 0 ? START : { line: file.lines[at]!, byte: file.bytes[at]! }
  }

  /** Lines between the checkpoints a scan of this file should record. */
  stride(key: string, version: FsVersion): number {
    return this.#current(key, version)?.stride ?? this.#stride
  }

  record(key: string, version: FsVersion, line: number, byte: number): void {
    if (line <= 1) return
    let file = this.#current(key, version)
    if (file === undefined) {
      file = { version, lines: [], bytes: [], stride: this.#stride }
      this.#files.set(key, file)
      if (this.#files.size > this.#maxFiles) this.#files.delete(this.#files.keys().next().value!)
    }
    const at = lastAtOrBefore(file.lines, line)
    if (at >= 0 && file.lines[at] === line) return
    file.lines.splice(at + 1, 0, line)
    file.bytes.splice(at + 1, 0, byte)
    if (file.lines.length > this.#maxCheckpoints) {
      file.lines = file.lines.filter((_, i) => i % 2 === 0)
      file.bytes = file.bytes.filter((_, i) => i % 2 === 0)
      file.stride *= 2
    }
  }

  /** Forgets a file, e.g. when it was found at another version than the one asked for. */
  drop(key: string): void {
    this.#files.delete(key)
  }

  /** What the index holds: files and checkpoints over all of them. */
  get size(): { files: number; checkpoints: number } {
    let checkpoints = 0
    for (const file of this.#files.values()) checkpoints += file.lines.length
    return { files: this.#files.size, checkpoints }
  }

  /** The file's entry at `version`, refreshed as most recently used; an entry at another version is dropped. */
  #current(key: string, version: FsVersion): FileLines | undefined {
    const file = this.#files.get(key)
    if (file === undefined) return undefined
    this.#files.delete(key)
    if (file.version !== version) return undefined
    this.#files.set(key, file)
    return file
  }
}

/** Index of the last element `<= value` in an ascending array, -1 when there is none. */
function lastAtOrBefore(sorted: readonly number[], value: number): number {
  let low = 0
  let high = sorted.length - 1
  while (low <= high) {
    const mid = (low + high) >> 1
    if (sorted[mid]! <= value) low = mid + 1
    else high = mid - 1
  }
  return high
}
