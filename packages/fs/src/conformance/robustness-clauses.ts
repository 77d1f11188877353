import { expect, it } from 'vitest'
import { FsError } from '../errors'
import { type Harness, abortedSignal, expectFsError } from './harness'

export function robustnessClauses(h: Harness): void {
  it('fails FS_ABORTED on an aborted signal and changes nothing', async () => {
    await h.external.write('f.txt', 'keep')
    const target = await h.target('f.txt')
    const version = await h.version('f.txt')
    const signal = abortedSignal()
    await expectFsError(h.fs.writeText(target, 'x', { signal }), 'FS_ABORTED')
    await expectFsError(h.fs.writeText(await h.target('new.txt'), 'x', { expected: { kind: 'createIfAbsent' }, signal }), 'FS_ABORTED')
    await expectFsError(h.fs.editText(target, { oldString: 'keep', newString: 'x', replaceAll: false }, { signal }), 'FS_ABORTED')
    await expectFsError(h.fs.readText(target, signal), 'FS_ABORTED')
    expect(await h.disk('f.txt')).toBe('keep')
    expect(await h.version('f.txt')).toBe(version)
    expect(await h.external.read('new.txt')).toBeUndefined()
  })

  it('lets exactly one of concurrent replaceIfVersion writes from one version win', async () => {
    await h.external.write('race.txt', 'base')
    const version = await h.version('race.txt')
    const target = await h.target('race.txt')
    const writers = Array.from({ length: 6 }, (_, i) => h.fs.writeText(target, `writer ${i}`, { expected: { kind: 'replaceIfVersion', version } }))
    const results = await Promise.allSettled(writers)
    const winners = results.flatMap((result, i) => (result.status === 'fulfilled' ? [i] : []))
    expect(winners).toHaveLength(1)
    for (const result of results) {
      if (result.status === 'rejected') expect(FsError.is(result.reason, 'FS_STALE_VERSION')).toBe(true)
    }
    expect(await h.disk('race.txt')).toBe(`writer ${winners[0]}`)
  })

  it('lets exactly one of concurrent createIfAbsent writes win', async () => {
    const target = await h.target('new.txt')
    const writers = Array.from({ length: 6 }, (_, i) => h.fs.writeText(target, `creator ${i}`, { expected: { kind: 'createIfAbsent' } }))
    const results = await Promise.allSettled(writers)
    const winners = results.flatMap((result, i) => (result.status === 'fulfilled' ? [i] : []))
    expect(winners).toHaveLength(1)
    for (const result of results) {
      if (result.status === 'rejected') expect(FsError.is(result.reason, 'FS_NOT_OBSERVED')).toBe(true)
    }
    expect(await h.disk('new.txt')).toBe(`creator ${winners[0]}`)
  })

  it('lets an unguarded write replace a file changed after its probe [needs beforeNextPublish]', async (ctx) => {
    if (!h.fixture.beforeNextPublish) return ctx.skip()
    await h.external.write('u.txt', 'one')
    h.fixture.beforeNextPublish(() => h.external.write('u.txt', 'two by someone else'))
    await h.fs.writeText(await h.target('u.txt'), 'mine')
    expect(await h.disk('u.txt')).toBe('mine')
  })

  it('redoes an unguarded edit whose file changed after its probe, losing neither change [needs beforeNextPublish]', async (ctx) => {
    if (!h.fixture.beforeNextPublish) return ctx.skip()
    await h.external.write('u.txt', 'a b')
    h.fixture.beforeNextPublish(() => h.external.write('u.txt', 'a b c'))
    await h.fs.editText(await h.target('u.txt'), { oldString: 'a', newString: 'A', replaceAll: false })
    expect(await h.disk('u.txt')).toBe('A b c')
  })

  it('fails a guarded edit whose file changed after its probe with FS_STALE_VERSION [needs beforeNextPublish]', async (ctx) => {
    if (!h.fixture.beforeNextPublish) return ctx.skip()
    await h.external.write('u.txt', 'a b')
    const version = await h.version('u.txt')
    h.fixture.beforeNextPublish(() => h.external.write('u.txt', 'a b c'))
    await expectFsError(h.fs.editText(await h.target('u.txt'), { oldString: 'a', newString: 'A', replaceAll: false }, { expected: { version } }), 'FS_STALE_VERSION')
    expect(await h.disk('u.txt')).toBe('a b c')
  })

  it('serialises concurrent unguarded edits of one target so none is lost', async () => {
    const letters = 'abcdefgh'.split('')
    await h.external.write('s.txt', letters.join(' '))
    const target = await h.target('s.txt')
    await Promise.all(letters.map((letter) => h.fs.editText(target, { oldString: letter, newString: letter.toUpperCase(), replaceAll: false })))
    expect(await h.disk('s.txt')).toBe('A B C D E F G H')
  })

  it('reports invalid paths as FS_INVALID_PATH', async () => {
    await expectFsError(h.fs.resolve(''), 'FS_INVALID_PATH')
    await expectFsError(h.fs.resolve(h.fixture.path('nul\0byte.txt')), 'FS_INVALID_PATH')
  })

  it('makes every failure an FsError with a code', async () => {
    await h.external.write('f.txt', 'f')
    const failures: (() => Promise<unknown>)[] = [
      async () => h.fs.readText(await h.target('missing')),
      async () => h.fs.listDir(await h.target('f.txt')),
      async () => h.fs.editText(await h.target('f.txt'), { oldString: 'zzz', newString: '', replaceAll: false }),
      async () => h.fs.writeText(await h.target('f.txt/child.txt'), 'x'),
      async () => h.fs.resolve('\0'),
    ]
    for (const failure of failures) {
      const error = await failure().then(() => undefined, (reason: unknown) => reason)
      expect(FsError.is(error), String(error)).toBe(true)
    }
  })
}
