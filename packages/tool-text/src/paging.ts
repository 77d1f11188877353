import { type FileSystem, FsError, type FsTarget, type FsVersion } from '@deepseek-ai/dsh-fs'
import { Utf8StreamDecoder } from '@deepseek-ai/dsh-fs/kit'
import type { Checkpoint, LineIndex } from './line-index'
import { decodeRest, type SkippedSource } from './window'

/** What a paged read needs to know about the file it reads. */
export interface PagedTarget {
  fs: FileSystem
  target: FsTarget
  /** The version the caller's `stat` saw: checkpoints are kept and looked up under it. */
  version: FsVersion
  signal?: AbortSignal | undefined
}

/**
 * Skips the lines before `from` in a byte stream without decoding them (validating bytes is much
 * cheaper than turning them into strings), then yields the rest as text. When the file ends before
 * line `from`, a placeholder stands for its last, unterminated line so that `buildWindow` still
 * counts it; the placeholder is never shown because it lies before the window.
 */
export function skipLines(bytes: AsyncIterable<Uint8Array>, from: number, path: string): Promise<SkippedSource> {
  return scan(bytes, { line: 1, byte: 0 }, from, path, undefined)
}

/**
 * `skipLines` that remembers where lines start: the scan begins at the nearest line start an
 * earlier read of the same version recorded (`FileSystem.streamBytesFrom`), and leaves checkpoints
 * behind, so the next page of a large file costs the lines between the two windows, not the whole
 * prefix again. A file that moved on since the `stat` is read from its start, as without an index,
 * and nothing is recorded for it.
 */
export async function skipLinesIndexed(index: LineIndex, paged: PagedTarget, from: number): Promise<SkippedSource> {
  const { fs, target, version, signal } = paged
  const key = target.targetKey
  const start = index.nearest(key, version, from)
  const options = signal === undefined ? { version } : { version, signal }
  try {
    return await scan(fs.streamBytesFrom(target, start.byte, options), start, from, target.displayPath, {
      stride: index.stride(key, version),
      record: (line, byte) => index.record(key, version, line, byte),
    })
  } catch (error) {
    if (!FsError.is(error, 'FS_STALE_VERSION')) throw error
    index.drop(key)
    return skipLines(fs.streamBytes(target, signal), from, target.displayPath)
  }
}

interface Recorder {
  stride: number
  record(line: number, byte: number): void
}

/**
 * Skips from the line start `start` to line `from` without decoding, validating the skipped bytes.
 * Checkpoints of a chunk are recorded only once the chunk's bytes passed validation: a resumed read
 * must never skip bytes that a full scan would have refused.
 */
async function scan(bytes: AsyncIterable<Uint8Array>, start: Checkpoint, from: number, path: string, recorder: Recorder | undefined): Promise<SkippedSource> {
  const decoder = new Utf8StreamDecoder(path, { offset: start.byte })
  const iterator = bytes[Symbol.asyncIterator]()
  const counter = new LineCounter(start.line, recorder)
  let unterminated = false
  // Byte offset of the current chunk's first byte in the stream.
  let base = start.byte
  let first: Uint8Array = new Uint8Array(0)
  try {
    while (counter.line < from) {
      const next = await iterator.next()
      if (next.done) {
        decoder.end()
        return { firstLine: counter.line, chunks: unterminated ? ['\u0000'] : [] }
      }
      const chunk = next.value
      const position = counter.pass(chunk, from, base)
      if (counter.line < from) {
        decoder.skip(chunk)
        if (position < chunk.length) unterminated = true
        else if (position > 0) unterminated = false
      } else {
        decoder.skip(chunk.subarray(0, position))
        first = chunk.subarray(position)
        if (recorder !== undefined && from > start.line) counter.pending.push(from, base + position)
      }
      counter.flush()
      base += chunk.length
    }
  } catch (error) {
    await iterator.return?.()
    throw error
  }
  return { firstLine: counter.line, chunks: decodeRest(decoder, first, iterator) }
}

/** Counts line feeds, holding a checkpoint every `stride` lines until its chunk's bytes passed validation. */
class LineCounter {
  line: number
  readonly stride: number
  /** The next line whose start is a checkpoint. */
  mark: number
  /** Checkpoints of the current chunk, as line, byte pairs. */
  readonly pending: number[] = []

  constructor(line: number, readonly recorder: Recorder | undefined) {
    this.line = line
    this.stride = recorder?.stride ?? Number.POSITIVE_INFINITY
    this.mark = recorder === undefined ? Number.POSITIVE_INFINITY : (Math.floor((line - 1) / this.stride) + 1) * this.stride + 1
  }

  /** Counts the lines of `chunk` (whose first byte is at `base`) up to line `from`; returns where counting stopped. */
  pass(chunk: Uint8Array, from: number, base: number): number {
    let position = 0
    while (this.line < from) {
      const newline = chunk.indexOf(0x0a, position)
      if (newline < 0) break
      this.line++
      position = newline + 1
      if (this.line === this.mark) {
        this.pending.push(this.line, base + position)
        this.mark += this.stride
      }
    }
    return position
  }

  /** The chunk's bytes passed validation: its checkpoints are recorded. */
  flush(): void {
    for (let i = 0; i < this.pending.length; i += 2) this.recorder?.record(this.pending[i]!, this.pending[i + 1]!)
    this.pending.length = 0
  }
}
