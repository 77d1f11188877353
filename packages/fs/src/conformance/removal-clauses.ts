import { expect } from 'vitest'
import type { FsTarget, FsVersion } from '../types'
import { abortedSignal, type Harness, expectFsError, needs, utf8, type ClauseGroup } from './harness'
import { raceClauses } from './races'

export const removal: ClauseGroup = { title: 'remove and rename (optional capabilities)', clauses: removalClauses }

/**
 * `remove` and `rename`: optional capabilities, so every clause needs the one it exercises and is
 * skipped, by name, for a provider that declares it lacks it.
 */
export function removalClauses(h: Harness): void {
  const remove = needs(h, 'remove')
  const rename = needs(h, 'rename')

  remove('removes a file at the expected version, and nothing is left at its path', async () => {
    await h.external.write('gone.txt', 'bye\n')
    const version = await h.version('gone.txt')
    const outcome = await h.fs.remove!(await h.target('gone.txt'), { expected: { version } })
    expect(outcome.version).toBe(version)
    expect(await h.external.read('gone.txt')).toBeUndefined()
    expect(await h.fs.stat(await h.target('gone.txt'))).toBeUndefined()
  })

  remove('removes whatever regular file is there without a guard', async () => {
    await h.external.write('any.txt', 'x')
    await h.fs.remove!(await h.target('any.txt'))
    expect(await h.external.read('any.txt')).toBeUndefined()
  })

  remove('refuses a file changed since its version with FS_STALE_VERSION and keeps the new bytes', async () => {
    await h.external.write('moved.txt', 'one')
    const version = await h.version('moved.txt')
    await h.external.write('moved.txt', 'two, longer')
    await expectFsError(h.fs.remove!(await h.target('moved.txt'), { expected: { version } }), 'FS_STALE_VERSION')
    expect(await h.disk('moved.txt')).toBe('two, longer')
  })

  remove('refuses a missing file with FS_STALE_VERSION, guarded or not', async () => {
    await h.external.write('was.txt', 'x')
    const version = await h.version('was.txt')
    await h.external.remove('was.txt')
    await expectFsError(h.fs.remove!(await h.target('was.txt'), { expected: { version } }), 'FS_STALE_VERSION')
    await expectFsError(h.fs.remove!(await h.target('never.txt')), 'FS_STALE_VERSION')
  })

  remove('never removes a directory: FS_NOT_REGULAR_FILE, and its files stay', async () => {
    await h.external.write('dir/keep.txt', 'k')
    await expectFsError(h.fs.remove!(await h.target('dir')), 'FS_NOT_REGULAR_FILE')
    expect(await h.disk('dir/keep.txt')).toBe('k')
  })

  raceClauses(h, [{
    name: 'keeps a change made between its probe and its publication',
    file: 'raced.txt', before: 'mine', competitor: ['raced.txt', 'theirs, later'],
    call: (h, target, version) => h.fs.remove!(target, { expected: { version: version! } }),
    fails: 'FS_STALE_VERSION', after: { 'raced.txt': 'theirs, later' },
  }], remove)

  remove('changes nothing when its signal has fired: FS_ABORTED', async () => {
    await h.external.write('kept.txt', 'k')
    await expectFsError(h.fs.remove!(await h.target('kept.txt'), { expected: { version: await h.version('kept.txt') }, signal: abortedSignal() }), 'FS_ABORTED')
    expect(await h.disk('kept.txt')).toBe('k')
  })

  needs(h, 'readOnlyFiles')('refuses to remove a read-only file with FS_PERMISSION_DENIED [needs remove]', async (ctx) => {
    if (!h.has('remove')) return ctx.skip()
    await h.external.write('locked.txt', 'keep me')
    await h.external.makeReadOnly!('locked.txt')
    const version = await h.version('locked.txt')
    expect((await expectFsError(h.fs.remove!(await h.target('locked.txt'), { expected: { version } }), 'FS_PERMISSION_DENIED')).fact).toBe('read-only')
    expect(await h.disk('locked.txt')).toBe('keep me')
  })

  rename('moves a file byte for byte (BOM, CRLF) and reports the version it has at the destination', async () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8('one\r\ntwo\nthree')])
    await h.external.write('from.txt', bytes)
    const version = await h.version('from.txt')
    const outcome = await h.fs.rename!(await h.target('from.txt'), await h.target('to.txt'), { expected: { version } })
    expect(await h.external.read('from.txt')).toBeUndefined()
    expect(await h.external.read('to.txt')).toEqual(bytes)
    expect(outcome.version).toBe(await h.version('to.txt'))
  })

  rename('makes the destination\'s missing parent directories', async () => {
    await h.external.write('src.txt', 'x\n')
    await h.fs.rename!(await h.target('src.txt'), await h.target('deep/er/dst.txt'), { expected: { version: await h.version('src.txt') } })
    expect(await h.disk('deep/er/dst.txt')).toBe('x\n')
    expect(await h.external.read('src.txt')).toBeUndefined()
  })

  rename('never replaces an existing destination: FS_NOT_OBSERVED, both files kept', async () => {
    await h.external.write('a.txt', 'a')
    await h.external.write('b.txt', 'b')
    await expectFsError(h.fs.rename!(await h.target('a.txt'), await h.target('b.txt'), { expected: { version: await h.version('a.txt') } }), 'FS_NOT_OBSERVED')
    expect(await h.disk('a.txt')).toBe('a')
    expect(await h.disk('b.txt')).toBe('b')
  })

  rename('refuses a directory at the destination with FS_NOT_REGULAR_FILE', async () => {
    await h.external.write('a.txt', 'a')
    await h.external.mkdir('d')
    await expectFsError(h.fs.rename!(await h.target('a.txt'), await h.target('d')), 'FS_NOT_REGULAR_FILE')
    expect(await h.disk('a.txt')).toBe('a')
  })

  rename('refuses a stale or missing source with FS_STALE_VERSION and moves nothing', async () => {
    await h.external.write('s.txt', 'one')
    const version = await h.version('s.txt')
    await h.external.write('s.txt', 'two, longer')
    await expectFsError(h.fs.rename!(await h.target('s.txt'), await h.target('t.txt'), { expected: { version } }), 'FS_STALE_VERSION')
    await expectFsError(h.fs.rename!(await h.target('none.txt'), await h.target('t.txt')), 'FS_STALE_VERSION')
    expect(await h.disk('s.txt')).toBe('two, longer')
    expect(await h.external.read('t.txt')).toBeUndefined()
  })

  rename('changes nothing when its signal has fired: FS_ABORTED', async () => {
    await h.external.write('stay.txt', 's')
    await expectFsError(h.fs.rename!(await h.target('stay.txt'), await h.target('went.txt'), { expected: { version: await h.version('stay.txt') }, signal: abortedSignal() }), 'FS_ABORTED')
    expect(await h.disk('stay.txt')).toBe('s')
    expect(await h.external.read('went.txt')).toBeUndefined()
  })

  rename('refuses a move onto the file itself with FS_INVALID_PATH', async () => {
    await h.external.write('self.txt', 'x')
    await expectFsError(h.fs.rename!(await h.target('self.txt'), await h.target('self.txt')), 'FS_INVALID_PATH')
    expect(await h.disk('self.txt')).toBe('x')
  })

  // Between a move's probe and its publication, a competitor may take the destination or change the source.
  const move = async (h: Harness, from: FsTarget, version: FsVersion | undefined) =>
    h.fs.rename!(from, await h.target('dest.txt'), { expected: { version: version! } })
  raceClauses(h, [{
    name: 'keeps a competitor created at the destination after its probe',
    file: 'mine.txt', before: 'mine', competitor: ['dest.txt', 'competitor'], call: move,
    fails: 'FS_NOT_OBSERVED', after: { 'dest.txt': 'competitor', 'mine.txt': 'mine' },
  }, {
    name: 'keeps a source changed between its probe and its publication',
    file: 'mine.txt', before: 'mine', competitor: ['mine.txt', 'theirs, later'], call: move,
    fails: 'FS_STALE_VERSION', after: { 'mine.txt': 'theirs, later', 'dest.txt': undefined },
  }], rename)

  needs(h, 'symlinks')('removes the file a symlink leads to and leaves the link dangling [needs remove]', async (ctx) => {
    if (!h.has('remove')) return ctx.skip()
    await h.external.write('real.txt', 'r')
    await h.external.symlink!('real.txt', 'link.txt')
    const target = await h.target('link.txt')
    await h.fs.remove!(target, { expected: { version: (await h.fs.stat(target))!.version } })
    expect(await h.external.read('real.txt')).toBeUndefined()
  })
}
