import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { FileNotFoundError, InvalidArgumentError, NotFoundError, SandboxError, TimeoutError } from 'e2b'
import { describe, expect, it } from 'vitest'
import { useEmulator } from './fixture.js'

const f = useEmulator()

/** The rejection of `promise`, so each test can assert its exact class. */
const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error)

describe('envd errors surface as the SDK error classes the provider maps', () => {
  it('a missing file is FileNotFoundError for read, getInfo, list and rename', async () => {
    const missing = join(f.root, 'missing')
    expect(await failure(f.sandbox.files.read(missing))).toBeInstanceOf(FileNotFoundError)
    expect(await failure(f.sandbox.files.getInfo(missing))).toBeInstanceOf(FileNotFoundError)
    expect(await failure(f.sandbox.files.list(missing))).toBeInstanceOf(FileNotFoundError)
    expect(await failure(f.sandbox.files.rename(missing, join(f.root, 'other')))).toBeInstanceOf(FileNotFoundError)
  })

  it('reading a directory or listing a file is InvalidArgumentError', async () => {
    await mkdir(join(f.root, 'dir'))
    await writeFile(join(f.root, 'file.txt'), 'x')
    expect(await failure(f.sandbox.files.read(join(f.root, 'dir')))).toBeInstanceOf(InvalidArgumentError)
    expect(await failure(f.sandbox.files.list(join(f.root, 'file.txt')))).toBeInstanceOf(InvalidArgumentError)
    expect(await failure(f.sandbox.files.makeDir(join(f.root, 'file.txt')))).toBeInstanceOf(InvalidArgumentError)
  })

  it('writing onto a directory is InvalidArgumentError (HTTP 400)', async () => {
    await mkdir(join(f.root, 'taken'))
    expect(await failure(f.sandbox.files.write(join(f.root, 'taken'), 'x'))).toBeInstanceOf(InvalidArgumentError)
  })

  it('a failure envd reports as internal is a plain SandboxError', async () => {
    await writeFile(join(f.root, 'plain'), 'x')
    const error = await failure(f.sandbox.files.makeDir(join(f.root, 'plain/sub')))
    expect(error).toBeInstanceOf(SandboxError)
    expect(error).not.toBeInstanceOf(InvalidArgumentError)
    expect(error).not.toBeInstanceOf(FileNotFoundError)
  })

  it('stdin for an unknown pid is NotFoundError, and a kill of one returns false', async () => {
    expect(await failure(f.sandbox.commands.sendStdin(999_999, 'x'))).toBeInstanceOf(NotFoundError)
    expect(await f.sandbox.commands.kill(999_999)).toBe(false)
    expect(await failure(f.sandbox.commands.connect(999_999))).toBeInstanceOf(NotFoundError)
  })

  it('a request deadline shorter than a slow call is TimeoutError', async () => {
    const error = await failure(f.sandbox.commands.run('sleep 5', { timeoutMs: 200 }))
    expect(error).toBeInstanceOf(TimeoutError)
  })
})
