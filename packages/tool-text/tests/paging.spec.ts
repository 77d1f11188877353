import { type FileSystem, FsError, type FsStreamFromOptions, type FsTarget } from '@deepseek-ai/dsh-fs'
import { MemoryFileSystem, MemoryVolume } from '@deepseek-ai/dsh-fs/memory'
import { LocalDisk, LocalFileSystem } from '@deepseek-ai/dsh-fs-local'
import { Context } from 'cordis'
import fc from 'fast-check'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LineIndex } from '../src/line-index'
import { skipLinesIndexed } from '../src/paging'
import { skipLines } from '../src/paging'
import { buildWindow } from '../src/window'

const limits = { limit: 3, maxLineLength: 50, maxBytes: 4096 }

/** Records where each stream started: the index's effect, seen from the provider. */
class LocalRecorded extends LocalFileSystem {
  readonly starts: number[] = []
  // Small chunks: line starts, split characters and checkpoints fall on chunk boundaries often.
  override readonly disk = new LocalDisk({ cwd: dir, diffMaxBytes: 1 << 20, maxTextBytes: 1 << 24, streamChunkBytes: 7 })

  override streamBytesFrom(target: FsTarget, start: number, opts?: FsStreamFromOptions) {
    this.starts.push(start)
    return super.streamBytesFrom(target, start, opts)
  }
}

let dir: string
let local: LocalRecorded
let memory: FileSystem
let volume: MemoryVolume

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsh-paging-'))
  const ctx = new Context()
  local = new LocalRecorded(ctx, { cwd: dir })
  volume = new MemoryVolume()
  volume.mkdir('/p')
  const memoryCtx = new Context()
  await memoryCtx.plugin(MemoryFileSystem, { cwd: '/p', volume })
  memory = memoryCtx.fs
})

afterAll(() => rm(dir, { recursive: true, force: true }))

/** The window at `offset` the plain way: a full scan from the first byte. */
async function fullScan(fs: FileSystem, target: FsTarget, offset: number) {
  const source = await skipLines(fs.streamBytes(target), offset, target.displayPath)
  return buildWindow(source.chunks, { ...limits, offset, firstLine: source.firstLine })
}

async function paged(fs: FileSystem, index: LineIndex, target: FsTarget, offset: number) {
  const { version } = (await fs.stat(target))!
  const source = await skipLinesIndexed(index, { fs, target, version }, offset)
  return buildWindow(source.chunks, { ...limits, offset, firstLine: source.firstLine })
}

async function outcome<T>(run: () => Promise<T>): Promise<T | { code: string }> {
  try {
    return await run()
  } catch (error) {
    if (FsError.is(error)) return { code: error.code }
    throw error
  }
}

const line = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('é', '中文', '🎉', '', 'a\r', '\u0000x'))
const text = fc.record({
  lines: fc.array(line, { maxLength: 60 }),
  bom: fc.boolean(),
  last: fc.boolean(),
  broken: fc.option(fc.nat(), { nil: undefined }),
}).map(({ lines, bom, last, broken }) => {
  const body = Buffer.from(lines.join('\n').replaceAll('\n', '\n') + (last ? '\n' : ''), 'utf8')
  const bytes = bom ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]) : body
  // Sometimes a byte that is not UTF-8, somewhere: a resumed read must refuse it as a full scan does.
  if (broken !== undefined && bytes.length > 0) bytes[broken % bytes.length] = 0xff
  return bytes
})

describe.each([['LocalFileSystem', () => local], ['MemoryFileSystem (the default streamBytesFrom)', () => memory]])('paging with a line index on %s', (_, provider) => {
  it('shows every window exactly as a full scan does, in any order of offsets', async () => {
    await fc.assert(fc.asyncProperty(text, fc.array(fc.integer({ min: 1, max: 70 }), { minLength: 1, maxLength: 8 }), async (bytes, offsets) => {
      const fs = provider()
      const target = await put(fs, 'f.txt', bytes)
      const index = new LineIndex({ stride: 4, maxCheckpoints: 6 })
      for (const offset of offsets) {
        const full = await outcome(() => fullScan(fs, target, offset))
        const got = await outcome(() => paged(fs, index, target, offset))
        // A window both refuse, or both show alike. Where the file is not text only past the window,
        // how far the decoder reads ahead depends on where chunks begin (a resumed read's chunks start
        // at its checkpoint), so either read may refuse there; never for bytes up to the window's end.
        if (!isText(bytes) && ('code' in full) !== ('code' in got)) {
          const shown = 'code' in full ? got : full
          const refused = 'code' in full ? full : got
          expect(refused).toEqual({ code: 'FS_NOT_TEXT' })
          expect(isText(bytes.subarray(0, endOfLine(bytes, (shown as { lines: Array<{ number: number }> }).lines.at(-1)?.number ?? 0))), 'bytes up to the window end are text').toBe(true)
        } else expect(got).toEqual(full)
      }
    }), { numRuns: 100 })
  }, 120_000)

  it('forgets the checkpoints of a version once the file changed', async () => {
    const fs = provider()
    const index = new LineIndex({ stride: 2 })
    const first = Array.from({ length: 30 }, (_, i) => `old ${i + 1}`).join('\n')
    const target = await put(fs, 'g.txt', Buffer.from(first))
    await paged(fs, index, target, 25)
    expect(index.size.checkpoints).toBeGreaterThan(0)
    const second = Array.from({ length: 30 }, (_, i) => `a much longer new line ${i + 1}`).join('\n')
    await put(fs, 'g.txt', Buffer.from(second))
    const window = await paged(fs, index, target, 25)
    expect(window.lines.map((l) => l.text)).toEqual(['a much longer new line 25', 'a much longer new line 26', 'a much longer new line 27'])
  })
})

describe('paging on the local disk', () => {
  it('starts the next window of the same version at the line the previous one reached', async () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${String(i + 1).padStart(3, '0')}`)
    const target = await put(local, 'h.txt', Buffer.from(`${lines.join('\n')}\n`))
    const index = new LineIndex()
    const before = local.starts.length
    await paged(local, index, target, 50)
    await paged(local, index, target, 53)
    // "line 001\n" is 9 bytes: line 50 starts at byte 441.
    expect(local.starts.slice(before)).toEqual([0, 49 * 9])
  })

  it('reads from the first byte, and records nothing, when the file moved on since its stat', async () => {
    const target = await put(local, 'i.txt', Buffer.from('a\nb\nc\nd\n'))
    const index = new LineIndex({ stride: 1 })
    const { version } = (await local.stat(target))!
    await writeFile(join(dir, 'i.txt'), 'w\nx\ny\nz\n')
    const source = await skipLinesIndexed(index, { fs: local, target, version }, 3)
    const window = await buildWindow(source.chunks, { ...limits, offset: 3, firstLine: source.firstLine })
    expect(window.lines.map((l) => l.text)).toEqual(['y', 'z'])
    expect(index.size.checkpoints).toBe(0)
  })
})

/** The byte offset just past line `line` (1-based, its line feed included), or the file's end. */
function endOfLine(bytes: Uint8Array, line: number): number {
  let at = 0
  for (let n = 0; n < line; n++) {
    const feed = bytes.indexOf(0x0a, at)
    if (feed < 0) return bytes.length
    at = feed + 1
  }
  return at
}

function isText(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    return bytes.subarray(0, 8192).indexOf(0) < 0
  } catch {
    return false
  }
}

async function put(fs: FileSystem, name: string, bytes: Uint8Array): Promise<FsTarget> {
  if (fs === memory) volume.writeFile(`/p/${name}`, bytes)
  else await writeFile(join(dir, name), bytes)
  return fs.resolve(name)
}
