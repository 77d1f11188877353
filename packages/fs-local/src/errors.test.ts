import { FS_ERROR_CODES, FsError } from '@deepseek-ai/dsh-fs'
import { mkdtemp, open, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { codeFor, toFsError } from './errors'

/** The error a real syscall throws, for the cases this machine can produce on demand. */
async function failure(task: () => Promise<unknown>): Promise<unknown> {
  return task().then(() => expect.fail('the syscall should have failed'), (error: unknown) => error)
}

describe('toFsError', () => {
  it('maps errors produced by real syscalls to their contract codes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dsh-errno-'))
    await writeFile(join(dir, 'file'), 'x')
    const cases: [Promise<unknown>, string][] = [
      [failure(() => readFile(join(dir, 'missing'))), 'FS_NOT_FOUND'],
      [failure(() => readFile(join(dir, 'file', 'child'))), 'FS_NOT_DIRECTORY'],
      [failure(() => readFile(dir)), 'FS_NOT_REGULAR_FILE'],
      [failure(() => stat(join(dir, 'x'.repeat(300)))), 'FS_INVALID_PATH'],
      [failure(() => stat(join(dir, 'nul\0byte'))), 'FS_INVALID_PATH'],
      [failure(() => open(join(dir, 'file'), 'wx')), 'FS_IO_ERROR'],
    ]
    for (const [error, code] of cases) {
      const mapped = toFsError(await error, 'read', 'p')
      expect(mapped.code).toBe(code)
      expect(mapped.cause).toBe(await error)
    }
    await rm(dir, { recursive: true })
  })

  it('maps permission, space and device errnos without reading the message', () => {
    const errno = (code: string) => Object.assign(new Error('message text that must not matter: ENOENT'), { code })
    expect(codeFor(errno('EACCES'))).toBe('FS_PERMISSION_DENIED')
    expect(codeFor(errno('EPERM'))).toBe('FS_PERMISSION_DENIED')
    expect(codeFor(errno('EROFS'))).toBe('FS_PERMISSION_DENIED')
    expect(codeFor(errno('ENAMETOOLONG'))).toBe('FS_INVALID_PATH')
    expect(codeFor(errno('ENOSPC'))).toBe('FS_IO_ERROR')
    expect(codeFor(errno('EIO'))).toBe('FS_IO_ERROR')
    expect(codeFor(errno('EDQUOT'))).toBe('FS_IO_ERROR')
    expect(codeFor(errno('ENXIO'))).toBe('FS_NOT_REGULAR_FILE')
    expect(codeFor(errno('EFBIG'))).toBe('FS_TOO_LARGE')
    expect(codeFor(errno('ABORT_ERR'))).toBe('FS_ABORTED')
    expect(codeFor(errno('ESOMETHINGNEW'))).toBe('FS_IO_ERROR')
    expect(codeFor(new Error('ENOENT in the message only'))).toBe('FS_IO_ERROR')
    expect(codeFor('a thrown string')).toBe('FS_IO_ERROR')
  })

  it('passes an FsError through untouched and always yields a known code', () => {
    const original = new FsError('FS_STALE_VERSION', 'stale')
    expect(toFsError(original, 'write', 'p')).toBe(original)
    for (const thrown of [null, undefined, 42, {}, new TypeError('x')]) {
      expect(FS_ERROR_CODES).toContain(toFsError(thrown, 'write', 'p').code)
    }
  })
})
