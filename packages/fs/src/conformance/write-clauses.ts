import { expect, it } from 'vitest'
import { type Harness, expectFsError, needs, within, type ClauseGroup } from './harness'
import { raceClauses } from './races'

export const writes: ClauseGroup = { title: 'writeText', clauses: writeClauses }

export function writeClauses(h: Harness): void {
  it('creates a missing file and its parent directories without a guard', async () => {
    const outcome = await h.fs.writeText(await h.target('a/b/new.txt'), 'fresh\n')
    expect(outcome).toMatchObject({ operation: 'create', before: null, after: 'fresh\n' })
    expect(await h.disk('a/b/new.txt')).toBe('fresh\n')
  })

  it('overwrites an existing file without a guard', async () => {
    await h.external.write('f.txt', 'old\n')
    const outcome = await h.fs.writeText(await h.target('f.txt'), 'new\n')
    expect(outcome).toMatchObject({ operation: 'update', before: 'old\n', after: 'new\n' })
    expect(await h.disk('f.txt')).toBe('new\n')
  })

  it('creates a missing file under createIfAbsent', async () => {
    const outcome = await h.fs.writeText(await h.target('c.txt'), 'mine', { expected: { kind: 'createIfAbsent' } })
    expect(outcome.operation).toBe('create')
    expect(await h.disk('c.txt')).toBe('mine')
  })

  it('refuses createIfAbsent over an existing file with FS_NOT_OBSERVED and keeps its bytes', async () => {
    await h.external.write('c.txt', 'theirs')
    await expectFsError(h.fs.writeText(await h.target('c.txt'), 'mine', { expected: { kind: 'createIfAbsent' } }), 'FS_NOT_OBSERVED')
    expect(await h.disk('c.txt')).toBe('theirs')
  })

  raceClauses(h, [{
    name: 'keeps a competitor created after the probe of a createIfAbsent write',
    file: 'c.txt', competitor: ['c.txt', 'competitor'],
    call: (h, target) => h.fs.writeText(target, 'mine', { expected: { kind: 'createIfAbsent' } }),
    fails: 'FS_NOT_OBSERVED', after: { 'c.txt': 'competitor' },
  }])

  it('refuses a directory in the way with FS_NOT_REGULAR_FILE, guarded or not', async () => {
    await h.external.write('d/keep.txt', 'k')
    const target = await h.target('d')
    await expectFsError(h.fs.writeText(target, 'x'), 'FS_NOT_REGULAR_FILE')
    await expectFsError(h.fs.writeText(target, 'x', { expected: { kind: 'createIfAbsent' } }), 'FS_NOT_REGULAR_FILE')
    expect(await h.disk('d/keep.txt')).toBe('k')
  })

  needs(h, 'specialFiles')('refuses a FIFO in the way with FS_NOT_REGULAR_FILE, without blocking', async () => {
    await h.external.mkfifo!('pipe')
    const target = await h.target('pipe')
    await within(3000, expectFsError(h.fs.writeText(target, 'x'), 'FS_NOT_REGULAR_FILE'))
    await within(3000, expectFsError(h.fs.writeText(target, 'x', { expected: { kind: 'createIfAbsent' } }), 'FS_NOT_REGULAR_FILE'))
  })

  needs(h, 'symlinks')('refuses a dangling symlink in the way with FS_NOT_REGULAR_FILE and creates nothing', async () => {
    await h.external.symlink!('nowhere.txt', 'dangling.txt')
    const target = await h.target('dangling.txt')
    await expectFsError(h.fs.writeText(target, 'x', { expected: { kind: 'createIfAbsent' } }), 'FS_NOT_REGULAR_FILE')
    await expectFsError(h.fs.writeText(target, 'x'), 'FS_NOT_REGULAR_FILE')
    expect(await h.external.read('nowhere.txt')).toBeUndefined()
  })

  needs(h, 'symlinks')('writes through a symlink to its target and keeps the link', async () => {
    await h.external.write('real.txt', 'old')
    await h.external.symlink!('real.txt', 'link.txt')
    await h.fs.writeText(await h.target('link.txt'), 'new')
    expect(await h.disk('real.txt')).toBe('new')
    await h.external.write('real.txt', 'newer')
    expect(await h.fs.readText(await h.target('link.txt'))).toBe('newer')
  })

  it('replaces at the expected version under replaceIfVersion', async () => {
    await h.external.write('r.txt', 'v1')
    const version = await h.version('r.txt')
    const outcome = await h.fs.writeText(await h.target('r.txt'), 'v2', { expected: { kind: 'replaceIfVersion', version } })
    expect(outcome).toMatchObject({ operation: 'update', before: 'v1', after: 'v2' })
    expect(await h.disk('r.txt')).toBe('v2')
  })

  it('fails FS_STALE_VERSION once the version moved and keeps the newer bytes', async () => {
    await h.external.write('r.txt', 'v1')
    const version = await h.version('r.txt')
    await h.external.write('r.txt', 'v2 by someone else')
    await expectFsError(h.fs.writeText(await h.target('r.txt'), 'mine', { expected: { kind: 'replaceIfVersion', version } }), 'FS_STALE_VERSION')
    expect(await h.disk('r.txt')).toBe('v2 by someone else')
  })

  it('never recreates a deleted file under replaceIfVersion', async () => {
    await h.external.write('r.txt', 'v1')
    const version = await h.version('r.txt')
    await h.external.remove('r.txt')
    await expectFsError(h.fs.writeText(await h.target('r.txt'), 'mine', { expected: { kind: 'replaceIfVersion', version } }), 'FS_STALE_VERSION')
    expect(await h.external.read('r.txt')).toBeUndefined()
  })

  it('keeps the BOM of a file it overwrites and adds none to a new file', async () => {
    await h.external.write('bom.txt', Uint8Array.of(0xef, 0xbb, 0xbf, 0x61))
    await h.fs.writeText(await h.target('bom.txt'), 'b')
    expect([...(await h.external.read('bom.txt'))!]).toEqual([0xef, 0xbb, 0xbf, 0x62])
    await h.fs.writeText(await h.target('plain.txt'), 'b')
    expect([...(await h.external.read('plain.txt'))!]).toEqual([0x62])
  })

  it('keeps CRLF when overwriting a CRLF file with bare-LF content, and otherwise writes as given', async () => {
    await h.external.write('crlf.txt', 'a\r\nb\r\n')
    await h.fs.writeText(await h.target('crlf.txt'), 'x\ny\n')
    expect(await h.disk('crlf.txt')).toBe('x\r\ny\r\n')

    await h.external.write('crlf2.txt', 'a\r\nb\r\n')
    await h.fs.writeText(await h.target('crlf2.txt'), 'x\r\ny\n')
    expect(await h.disk('crlf2.txt')).toBe('x\r\ny\n')

    await h.external.write('mixed.txt', 'a\r\nb\n')
    await h.fs.writeText(await h.target('mixed.txt'), 'x\ny\n')
    expect(await h.disk('mixed.txt')).toBe('x\ny\n')

    await h.fs.writeText(await h.target('new.txt'), 'x\ny\n')
    expect(await h.disk('new.txt')).toBe('x\ny\n')
  })

  it('round-trips read then write byte for byte', async () => {
    const bytes = Uint8Array.of(0xef, 0xbb, 0xbf, ...new TextEncoder().encode('a\r\nb\nc\rd\r\n'))
    await h.external.write('rt.txt', bytes)
    const target = await h.target('rt.txt')
    await h.fs.writeText(target, await h.fs.readText(target))
    expect([...(await h.external.read('rt.txt'))!]).toEqual([...bytes])
  })
}
