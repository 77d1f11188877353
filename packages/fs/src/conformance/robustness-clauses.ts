import { expect, it } from 'vitest'
import { FsError, type FsErrorCode } from '../errors'
import { type Harness, abortedSignal, expectFsError, type ClauseGroup } from './harness'
import { raceClauses } from './races'

export const robustness: ClauseGroup = { title: 'aborts, concurrency and errors', clauses: robustnessClauses }

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
    const winner = await oneWinner((i) => h.fs.writeText(target, `writer ${i}`, { expected: { kind: 'replaceIfVersion', version } }), 'FS_STALE_VERSION')
    expect(await h.disk('race.txt')).toBe(`writer ${winner}`)
  })

  it('lets exactly one of concurrent createIfAbsent writes win', async () => {
    const target = await h.target('new.txt')
    const winner = await oneWinner((i) => h.fs.writeText(target, `creator ${i}`, { expected: { kind: 'createIfAbsent' } }), 'FS_NOT_OBSERVED')
    expect(await h.disk('new.txt')).toBe(`creator ${winner}`)
  })

  const edit = (oldString: string, newString: string) => ({ oldString, newString, replaceAll: false })
  raceClauses(h, [{
    name: 'lets an unguarded write replace a file changed after its probe',
    file: 'u.txt', before: 'one', competitor: ['u.txt', 'two by someone else'],
    call: (h, target) => h.fs.writeText(target, 'mine'), after: { 'u.txt': 'mine' },
  }, {
    name: 'redoes an unguarded edit whose file changed after its probe, losing neither change',
    file: 'u.txt', before: 'a b', competitor: ['u.txt', 'a b c'],
    call: (h, target) => h.fs.editText(target, edit('a', 'A')), after: { 'u.txt': 'A b c' },
  }, {
    name: 'fails a guarded edit whose file changed after its probe with FS_STALE_VERSION',
    file: 'u.txt', before: 'a b', competitor: ['u.txt', 'a b c'],
    call: (h, target, version) => h.fs.editText(target, edit('a', 'A'), { expected: { version: version! } }),
    fails: 'FS_STALE_VERSION', after: { 'u.txt': 'a b c' },
  }])

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

/** Starts six concurrent calls and settles them: exactly one wins, every other fails `loses`. The winner's index. */
async function oneWinner(call: (i: number) => Promise<unknown>, loses: FsErrorCode): Promise<number> {
  const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => call(i)))
  const winners = results.flatMap((result, i) => (result.status === 'fulfilled' ? [i] : []))
  expect(winners).toHaveLength(1)
  for (const result of results) {
    if (result.status === 'rejected') expect(FsError.is(result.reason, loses)).toBe(true)
  }
  return winners[0]!
}
