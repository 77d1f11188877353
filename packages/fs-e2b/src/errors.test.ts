import { FsError } from '@deepseek-ai/dsh-fs'
import {
  AuthenticationError, CommandExitError, FileNotFoundError, InvalidArgumentError, NotEnoughSpaceError, SandboxError, TimeoutError,
} from 'e2b'
import { describe, expect, it } from 'vitest'
import { statusError, toFsError } from './errors'
import { STATUS, STATUS_CODES } from './status'

describe('SDK errors become FsError codes by class', () => {
  it.each([
    [new FileNotFoundError('any text'), 'FS_NOT_FOUND'],
    [new InvalidArgumentError('any text'), 'FS_INVALID_PATH'],
    [new AuthenticationError('any text'), 'FS_PERMISSION_DENIED'],
    [new NotEnoughSpaceError('any text'), 'FS_IO_ERROR'],
    [new TimeoutError('any text'), 'FS_IO_ERROR'],
    [new SandboxError('file not found'), 'FS_IO_ERROR'],
    [new Error('no such file or directory'), 'FS_IO_ERROR'],
  ] as const)('%s → %s', (error, code) => {
    const mapped = toFsError(error, '/p')
    expect(mapped.code).toBe(code)
    expect(mapped.cause).toBe(error)
  })

  it('reports any failure under a fired signal as FS_ABORTED, whatever the SDK threw', () => {
    const controller = new AbortController()
    controller.abort()
    expect(toFsError(new TimeoutError('canceled'), '/p', controller.signal).code).toBe('FS_ABORTED')
    expect(toFsError(new DOMException('stop', 'AbortError'), '/p').code).toBe('FS_ABORTED')
  })

  it('passes an FsError through untouched', () => {
    const error = new FsError('FS_STALE_VERSION', 'x')
    expect(toFsError(error, '/p')).toBe(error)
  })
})

describe('script exit codes', () => {
  it('map through the status table, with per-operation overrides', () => {
    for (const [name, exitCode] of Object.entries(STATUS)) {
      expect(statusError({ exitCode, output: '', stderr: '' }, '/p').code).toBe(STATUS_CODES[name as keyof typeof STATUS])
    }
    expect(statusError({ exitCode: STATUS.ABSENT, output: '', stderr: '' }, '/p', { ABSENT: 'FS_STALE_VERSION' }).code).toBe('FS_STALE_VERSION')
  })

  it('report a code outside the table as FS_IO_ERROR carrying stderr', () => {
    const error = statusError({ exitCode: 127, output: '', stderr: 'flock: command not found' }, '/p')
    expect(error.code).toBe('FS_IO_ERROR')
    expect(error.message).toContain('127')
  })

  it('keep the statuses clear of tool and signal exit codes', () => {
    for (const code of Object.values(STATUS)) expect(code > 2 && code < 126).toBe(true)
    expect(new Set(Object.values(STATUS)).size).toBe(Object.keys(STATUS).length)
    expect(new CommandExitError({ exitCode: STATUS.STALE, stdout: '', stderr: '' }).exitCode).toBe(STATUS.STALE)
  })
})
