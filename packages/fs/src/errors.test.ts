import { describe, expect, it } from 'vitest'
import { FS_ERROR_CODES, FsError, fsError, throwIfAborted } from './errors'

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

describe('fsError', () => {
  it('renders every code around the path, which it names exactly once', () => {
    for (const code of FS_ERROR_CODES.filter((code) => code !== 'FS_INVALID_PATTERN')) {
      const error = fsError(code, { path: '/w/a.txt' })
      expect([error.code, error.path, FsError.is(error, code)]).toEqual([code, '/w/a.txt', true])
      expect(error.message.split('/w/a.txt').length - 1, `${code}: ${error.message}`).toBe(1)
    }
  })

  it('phrases each code once, with the one fact the code does not say', () => {
    expect(fsError('FS_NOT_REGULAR_FILE', { path: 'a', entry: 'a directory' }).message).toBe('a is a directory, not a regular file')
    expect(fsError('FS_NOT_REGULAR_FILE', { path: 'a' }).message).toBe('a is not a regular file')
    expect(fsError('FS_STALE_VERSION', { path: 'a' }).message).toBe('a has changed since it was read')
    expect(fsError('FS_STALE_VERSION', { path: 'a', gone: true }).message).toBe('a no longer exists')
    expect(fsError('FS_NOT_DIRECTORY', { path: 'd/a', parent: 'd' }).message).toBe('d/a cannot be created: d is not a directory')
    expect(fsError('FS_NOT_TEXT', { path: 'a', reason: 'invalid UTF-8' }).message).toBe('a is not UTF-8 text: invalid UTF-8')
    expect(fsError('FS_IO_ERROR', { reason: 'the sandbox reported no home directory' }).message).toBe('the sandbox reported no home directory')
    const occurrences = { count: 3, lines: [1, 4], truncated: false }
    const ambiguous = fsError('FS_AMBIGUOUS_EDIT', { path: 'a', occurrences })
    expect([ambiguous.message, ambiguous.occurrences]).toEqual(['old_string occurs 3 times in a (lines 1, 4)', occurrences])
  })

  it('keeps the cause', () => {
    const cause = new Error('ENOENT')
    expect(fsError('FS_NOT_FOUND', { path: 'a', cause }).cause).toBe(cause)
  })
})
