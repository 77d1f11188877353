import { expect, it } from 'vitest'
import { Utf8StreamDecoder } from '../decode'
import { type Harness, expectFsError, needs, utf8, within, type ClauseGroup } from './harness'

export const reads: ClauseGroup = { title: 'identity, stat, versions and reads', clauses: readClauses }

export function readClauses(h: Harness): void {
  it('gives two spellings of one path one target key', async () => {
    await h.external.write('dir/a.txt', 'a')
    const plain = await h.target('dir/a.txt')
    const dotted = await h.fs.resolve(h.fixture.path('dir/./sub/../a.txt'))
    const relative = await h.fs.resolve('a.txt', { cwd: h.fixture.path('dir') })
    expect(dotted.targetKey).toBe(plain.targetKey)
    expect(relative.targetKey).toBe(plain.targetKey)
  })

  it('gives a missing path the key it keeps once created', async () => {
    const before = await h.target('new/deeper/file.txt')
    await h.fs.writeText(before, 'x')
    const after = await h.target('new/deeper/file.txt')
    expect(after.targetKey).toBe(before.targetKey)
  })

  needs(h, 'symlinks')('gives a symlink the key of the file it points to', async () => {
    await h.external.write('real.txt', 'r')
    await h.external.symlink!('real.txt', 'link.txt')
    expect((await h.target('link.txt')).targetKey).toBe((await h.target('real.txt')).targetKey)
  })

  it('stats a missing path as undefined', async () => {
    expect(await h.fs.stat(await h.target('missing.txt'))).toBeUndefined()
    expect(await h.fs.stat(await h.target('missing-dir/missing.txt'))).toBeUndefined()
  })

  it('stats a file with its type and byte size', async () => {
    await h.external.write('f.txt', 'héllo')
    expect(await h.fs.stat(await h.target('f.txt'))).toMatchObject({ type: 'file', size: 6 })
  })

  it('stats a directory as a directory', async () => {
    await h.external.mkdir('d')
    expect(await h.fs.stat(await h.target('d'))).toMatchObject({ type: 'directory' })
  })

  needs(h, 'specialFiles')('stats a FIFO as other', async () => {
    await h.external.mkfifo!('pipe')
    expect(await within(3000, h.fs.stat(await h.target('pipe')))).toMatchObject({ type: 'other' })
  })

  it('keeps a version while nothing changes and mints a new one on every write', async () => {
    await h.external.write('v.txt', 'one')
    const first = await h.version('v.txt')
    expect(await h.version('v.txt')).toBe(first)
    const outcome = await h.fs.writeText(await h.target('v.txt'), 'two')
    expect(outcome.version).not.toBe(first)
    expect(await h.version('v.txt')).toBe(outcome.version)
  })

  it('changes the version on an external same-size rewrite', async () => {
    await h.external.write('v.txt', 'aaaa')
    const first = await h.version('v.txt')
    await h.external.write('v.txt', 'bbbb')
    expect(await h.version('v.txt')).not.toBe(first)
  })

  needs(h, 'restoreMtime')('changes the version on a same-size rewrite that restores the mtime', async () => {
    await h.external.write('v.txt', 'aaaa')
    const first = await h.version('v.txt')
    await h.external.rewriteKeepingMtime!('v.txt', 'bbbb')
    expect(await h.version('v.txt')).not.toBe(first)
  })

  it('reads text, and streams the same text', async () => {
    const text = 'line 1\nλίνε 2 — ünïcödé 🎉\r\nlast line without newline'
    await h.external.write('t.txt', text)
    const target = await h.target('t.txt')
    expect(await h.fs.readText(target)).toBe(text)
    let streamed = ''
    for await (const chunk of h.fs.streamText(target)) streamed += chunk
    expect(streamed).toBe(text)
  })

  it('streams a large file in several bounded chunks without splitting characters', async () => {
    const line = 'ascii and multibyte: é 中 🎉 —— '.repeat(4) + '\n'
    const text = line.repeat(Math.ceil((3 * 1024 * 1024) / line.length))
    await h.external.write('big.txt', text)
    const chunks: string[] = []
    for await (const chunk of h.fs.streamText(await h.target('big.txt'))) chunks.push(chunk)
    expect(chunks.length).toBeGreaterThan(1)
    expect(Math.max(...chunks.map((chunk) => chunk.length))).toBeLessThanOrEqual(1024 * 1024)
    expect(chunks.join('') === text).toBe(true)
  })

  it('streams bytes that decode to the same text, with the same errors', async () => {
    const text = 'first é\r\n中 second\n🎉'
    await h.external.write('b.txt', Uint8Array.of(0xef, 0xbb, 0xbf, ...utf8(text)))
    const decoder = new Utf8StreamDecoder()
    let decoded = ''
    for await (const chunk of h.fs.streamBytes(await h.target('b.txt'))) decoded += decoder.push(chunk)
    expect(decoded + decoder.end()).toBe(text)
    await expectFsError(drainBytes(h.fs.streamBytes(await h.target('missing.txt'))), 'FS_NOT_FOUND')
    await h.external.mkdir('d')
    await expectFsError(drainBytes(h.fs.streamBytes(await h.target('d'))), 'FS_NOT_REGULAR_FILE')
  })

  it('resumes a byte stream at a position of streamBytes, and refuses a version the file left', async () => {
    await h.external.write('r.txt', Uint8Array.of(0xef, 0xbb, 0xbf, ...utf8('one\ntwo é\nthree\n')))
    const target = await h.target('r.txt')
    const whole = Buffer.concat(await collectBytes(h.fs.streamBytes(target)))
    const { version } = (await h.fs.stat(target))!
    for (const start of [0, 4, whole.length - 6, whole.length]) {
      expect(Buffer.concat(await collectBytes(h.fs.streamBytesFrom(target, start, { version }))).equals(whole.subarray(start))).toBe(true)
    }
    await h.external.write('r.txt', 'changed\n')
    await expectFsError(drainBytes(h.fs.streamBytesFrom(target, 4, { version })), 'FS_STALE_VERSION')
  })

  it('hides a UTF-8 BOM from readers', async () => {
    await h.external.write('bom.txt', Uint8Array.of(0xef, 0xbb, 0xbf, ...utf8('hello\n')))
    const target = await h.target('bom.txt')
    expect(await h.fs.readText(target)).toBe('hello\n')
    let streamed = ''
    for await (const chunk of h.fs.streamText(target)) streamed += chunk
    expect(streamed).toBe('hello\n')
  })

  it('refuses binary data (a NUL byte) with FS_NOT_TEXT', async () => {
    await h.external.write('bin', Uint8Array.of(0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x41))
    const target = await h.target('bin')
    await expectFsError(h.fs.readText(target), 'FS_NOT_TEXT')
    await expectFsError(drain(h.fs.streamText(target)), 'FS_NOT_TEXT')
  })

  it('refuses invalid UTF-8 with FS_NOT_TEXT, also past the binary sniff window', async () => {
    await h.external.write('latin1.txt', Uint8Array.of(...utf8('caf'), 0xe9, 0x0a))
    await h.external.write('late.txt', Uint8Array.of(...utf8('x'.repeat(100_000)), 0xff, 0x0a))
    for (const name of ['latin1.txt', 'late.txt']) {
      const target = await h.target(name)
      await expectFsError(h.fs.readText(target), 'FS_NOT_TEXT')
      await expectFsError(drain(h.fs.streamText(target)), 'FS_NOT_TEXT')
    }
  })

  it('fails FS_NOT_FOUND reading a missing file and FS_NOT_REGULAR_FILE reading a directory', async () => {
    await expectFsError(h.fs.readText(await h.target('missing.txt')), 'FS_NOT_FOUND')
    await expectFsError(drain(h.fs.streamText(await h.target('missing.txt'))), 'FS_NOT_FOUND')
    await h.external.mkdir('d')
    await expectFsError(h.fs.readText(await h.target('d')), 'FS_NOT_REGULAR_FILE')
  })

  needs(h, 'specialFiles')('refuses to read a FIFO promptly, without blocking', async () => {
    await h.external.mkfifo!('pipe')
    const target = await h.target('pipe')
    await within(3000, expectFsError(h.fs.readText(target), 'FS_NOT_REGULAR_FILE'))
    await within(3000, expectFsError(drain(h.fs.streamText(target)), 'FS_NOT_REGULAR_FILE'))
  })

  it('lists a directory with names, types and resolvable targets', async () => {
    await h.external.write('d/a.txt', 'a')
    await h.external.write('d/sub/b.txt', 'b')
    const entries = await h.fs.listDir(await h.target('d'))
    const named = entries.map((entry) => [entry.name, entry.type]).sort()
    expect(named).toEqual([['a.txt', 'file'], ['sub', 'directory']])
    const file = entries.find((entry) => entry.name === 'a.txt')!
    expect(file.target.targetKey).toBe((await h.target('d/a.txt')).targetKey)
  })

  it('fails FS_NOT_FOUND listing a missing directory and FS_NOT_DIRECTORY listing a file', async () => {
    await expectFsError(h.fs.listDir(await h.target('nope')), 'FS_NOT_FOUND')
    await h.external.write('f.txt', 'f')
    await expectFsError(h.fs.listDir(await h.target('f.txt')), 'FS_NOT_DIRECTORY')
  })
}

async function drain(stream: AsyncIterable<string>): Promise<string> {
  let text = ''
  for await (const chunk of stream) text += chunk
  return text
}

async function collectBytes(stream: AsyncIterable<Uint8Array>): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = []
  // Copies: a chunk may be a view into a buffer the provider reuses.
  for await (const chunk of stream) chunks.push(Uint8Array.from(chunk))
  return chunks
}

async function drainBytes(stream: AsyncIterable<Uint8Array>): Promise<number> {
  let size = 0
  for await (const chunk of stream) size += chunk.length
  return size
}
