import { type FsInfo, type FsStreamFromOptions, type FsTarget, fsError } from '@deepseek-ai/dsh-fs'
import { decodeText, TEXT_COST_PER_BYTE, throwIfAborted } from '@deepseek-ai/dsh-fs/kit'
import { checkReal, type DiskCore } from './core'
import { mapErrors, toFsError } from './errors'
import { type OpenedFile, openRegular } from './open'
import { infoOfEntry, readAll, statPath } from './probe'
import { versionOf } from './probe'

/** The first and the largest read of a byte stream (see `streamBytesFrom`). */
const FIRST_STREAM_CHUNK = 64 * 1024
const MAX_STREAM_CHUNK = 1024 * 1024

export function statTarget(core: DiskCore, target: FsTarget, signal?: AbortSignal): Promise<FsInfo | undefined> {
  const display = target.displayPath
  return mapErrors('stat', display, async () => {
    throwIfAborted(signal, display)
    // Two independent lookups, made together; being outside the root is the answer before any other.
    const [inside, stats] = await Promise.allSettled([checkReal(core, target), statPath(core.process.calls, target.targetKey)])
    if (inside.status === 'rejected') throw inside.reason
    if (stats.status === 'rejected') throw stats.reason
    return stats.value === undefined ? undefined : infoOfEntry(stats.value)
  })
}

export function readWhole(core: DiskCore, target: FsTarget, signal?: AbortSignal): Promise<string> {
  const display = target.displayPath
  return mapErrors('read', display, async () => {
    throwIfAborted(signal, display)
    const opened = await openRegular(core.process.calls, target.targetKey, display, { inline: true })
    try {
      await core.containment.check(opened.real, display)
      const { maxTextBytes } = core.options
      const cost = TEXT_COST_PER_BYTE * Math.min(Number(opened.stats.size), maxTextBytes)
      return await core.budget.with(cost, 'reading', display, signal, async () => {
        const bytes = await readAll(opened, maxTextBytes, display)
        throwIfAborted(signal, display)
        return decodeText(bytes, display).text
      })
    } finally {
      await opened.handle.close().catch(() => {})
    }
  })
}

/**
 * The raw bytes from `start` on, read at that position (nothing before it is read), checked against
 * `opts.version` on the descriptor that was opened, so the bytes streamed are those of that version.
 */
export async function* streamFrom(core: DiskCore, target: FsTarget, start: number, opts: FsStreamFromOptions = {}): AsyncIterable<Uint8Array> {
  const display = target.displayPath
  const { signal, version } = opts
  try {
    throwIfAborted(signal, display)
    const opened = await openRegular(core.process.calls, target.targetKey, display, { inline: true })
    try {
      await core.containment.check(opened.real, display)
      if (version !== undefined && versionOf(opened.stats) !== version) throw fsError('FS_STALE_VERSION', { path: display })
      yield* readAhead(opened, start, core.options.streamChunkBytes, () => throwIfAborted(signal, display))
    } finally {
      await opened.handle.close().catch(() => {})
    }
  } catch (error) {
    throw toFsError(error, 'read', display)
  }
}

/**
 * Two buffers for the whole stream, so memory stays bounded: the next chunk is read into one while
 * the reader works on the other (valid until it asks for more). Chunks grow from 64 KiB to 1 MiB: a
 * reader that stops early reads little, a long scan makes few thread-pool trips.
 */
async function* readAhead(opened: OpenedFile, start: number, fixed: number | undefined, check: () => void): AsyncIterable<Uint8Array> {
  const max = fixed ?? MAX_STREAM_CHUNK
  const buffers = [Buffer.allocUnsafe(max), Buffer.allocUnsafe(max)] as const
  let size = fixed ?? FIRST_STREAM_CHUNK
  let position = start
  const readInto = (buffer: Buffer) => {
    const read = opened.handle.read(buffer, 0, size, position)
    size = Math.min(max, size * 2)
    return read
  }
  let next: ReturnType<typeof readInto> | undefined = readInto(buffers[0])
  try {
    for (let turn = 0; ; turn ^= 1) {
      const { bytesRead } = await next
      next = undefined
      check()
      if (bytesRead === 0) return
      position += bytesRead
      next = readInto(buffers[turn ^ 1])
      yield buffers[turn].subarray(0, bytesRead)
    }
  } finally {
    // A read still in flight must finish before its descriptor is closed.
    await next?.catch(() => {})
  }
}
