import { describe, expect, it } from 'vitest'
import { FsError, throwIfAborted } from './errors'

describe('FsError', () => {
  it('is recognised across two copies of the package', async () => {
    // A query string makes Vite load a second, independent instance of the module.
    const specifier = './errors?second-install'
    const copy = (await import(/* @vite-ignore */ specifier)) as typeof import('./errors')
    expect(copy.FsError).not.toBe(FsError)
    const foreign = new copy.FsError('FS_STALE_VERSION', 'changed')
    expect(foreign instanceof FsError).toBe(false)
    expect(FsError.is(foreign)).toBe(true)
    expect(FsError.is(foreign, 'FS_STALE_VERSION')).toBe(true)
    expect(FsError.is(foreign, 'FS_NOT_FOUND')).toBe(false)
  })

  it('rejects look-alikes and keeps its cause', () => {
    expect(FsError.is(Object.assign(new Error('x'), { code: 'FS_NOT_FOUND' }))).toBe(false)
    expect(FsError.is(null)).toBe(false)
    const cause = new Error('ENOENT')
    expect(new FsError('FS_NOT_FOUND', 'missing', { cause }).cause).toBe(cause)
  })

  it('turns an aborted signal into FS_ABORTED', () => {
    const controller = new AbortController()
    throwIfAborted(controller.signal)
    controller.abort()
    const error = (() => { try { throwIfAborted(controller.signal, 'a.txt') } catch (e) { return e } })()
    expect(FsError.is(error, 'FS_ABORTED')).toBe(true)
    expect((error as FsError).path).toBe('a.txt')
    expect((error as FsError).cause).toBe(controller.signal.reason)
  })
})
