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
  let line = start.line
  let unterminated = false
  // Byte offset of the current chunk's first byte in the stream.
  let base = start.byte
  let first: Uint8Array = new Uint8Array(0)
  const pending: number[] = []
  const stride = recorder?.stride ?? Number.POSITIVE_INFINITY
  let mark = recorder === undefined ? Number.POSITIVE_INFINITY : (Math.floor((line - 1) / stride) + 1) * stride + 1
  try {
    while (line < from) {
      const next = await iterator.next()
      if (next.done) {
        decoder.end()
        return { firstLine: line, chunks: unterminated ? ['\u0000'] : [] }
      }
      const chunk = next.value
      let position = 0
      while (line < from) {
        const newline = chunk.indexOf(0x0a, position)
        if (newline < 0) break
        line++
        position = newline + 1
        if (line === mark) {
          pending.push(line, base + position)
          mark += stride
        }
      }
      if (line < from) {
        decoder.skip(chunk)
        if (position < chunk.length) unterminated = true
        else if (position > 0) unterminated = false
      } else {
        decoder.skip(chunk.subarray(0, position))
        first = chunk.subarray(position)
        if (recorder !== undefined && from > start.line) pending.push(from, base + position)
      }
      for (let i = 0; i < pending.length; i += 2) recorder?.record(pending[i]!, pending[i + 1]!)
      pending.length = 0
      base += chunk.length
    }
  } catch (error) {
    await iterator.return?.()
    throw error
  }
  return { firstLine: line, chunks: decodeRest(decoder, first, iterator) }
}
