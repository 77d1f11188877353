import { describe, expect, it } from 'vitest'
import { KeyedLock } from './lock'

const tick = () => new Promise((resolve) => setTimeout(resolve, 1))

describe('KeyedLock', () => {
  it('runs tasks of one key one at a time in arrival order', async () => {
    const lock = new KeyedLock()
    const log: string[] = []
    const task = (name: string) => lock.run('k', async () => {
      log.push(`${name} start`)
      await tick()
      log.push(`${name} end`)
      return name
    })
    expect(await Promise.all([task('a'), task('b'), task('c')])).toEqual(['a', 'b', 'c'])
    expect(log).toEqual(['a start', 'a end', 'b start', 'b end', 'c start', 'c end'])
    expect(lock.size).toBe(0)
  })

  it('does not make different keys wait for each other', async () => {
    const lock = new KeyedLock()
    let release!: () => void
    const blocked = lock.run('a', () => new Promise<void>((resolve) => (release = resolve)))
    expect(await lock.run('b', async () => 'free')).toBe('free')
    release()
    await blocked
  })

  it('releases the key when a task fails', async () => {
    const lock = new KeyedLock()
    await expect(lock.run('k', async () => { throw new Error('boom') })).rejects.toThrow('boom')
    expect(await lock.run('k', async () => 'next')).toBe('next')
  })

  it('holds several keys at once and cannot deadlock on two tasks taking them in opposite orders', async () => {
    const lock = new KeyedLock()
    const log: string[] = []
    const task = (name: string, keys: string[]) => lock.runAll(keys, async () => {
      log.push(`${name} start`)
      await tick()
      log.push(`${name} end`)
      return name
    })
    expect(await Promise.all([task('ab', ['a', 'b']), task('ba', ['b', 'a']), task('aa', ['a', 'a'])])).toEqual(['ab', 'ba', 'aa'])
    expect(log).toEqual(['ab start', 'ab end', 'ba start', 'ba end', 'aa start', 'aa end'])
    expect(lock.size).toBe(0)
  })
})
