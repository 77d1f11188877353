import type { FsTarget } from '@deepseek-ai/dsh-fs'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freshDir, type Provider, startProvider, useEmulatedSandbox } from './support/sandbox'

// The README's table of round trips comes from these numbers: each is the count of HTTP requests
// the emulator received during one operation (a command is one Process/Start, an upload one POST).
const sandbox = useEmulatedSandbox()
let provider: Provider
let dir: string

beforeAll(async () => {
  provider = await startProvider(sandbox.emulator.url)
})
afterAll(() => provider?.dispose())

async function count(operation: () => Promise<unknown>): Promise<Record<string, number>> {
  sandbox.emulator.resetRequests()
  await operation()
  return sandbox.emulator.stats()
}

async function seeded(name: string, text: string): Promise<FsTarget> {
  dir = await freshDir(sandbox.root)
  await writeFile(join(dir, name), text)
  return provider.fs.resolve(join(dir, name))
}

const command = (n: number) => (n === 0 ? {} : { 'POST /process.Process/Start': n })
const commandsAndUploads = (commands: number, uploads: number) => ({ ...command(commands), 'POST /files': uploads })

describe('round trips per operation', () => {
  it('connects with one probe command and no API call', async () => {
    sandbox.emulator.resetRequests()
    const other = await startProvider(sandbox.emulator.url)
    expect(sandbox.emulator.stats()).toEqual(command(1))
    await other.dispose()
  })

  it('resolves, stats, reads and lists with one command each', async () => {
    const target = await seeded('a.txt', 'alpha\n')
    expect(await count(() => provider.fs.resolve(join(dir, 'a.txt')))).toEqual(command(1))
    expect(await count(() => provider.fs.stat(target))).toEqual(command(1))
    expect(await count(() => provider.fs.readText(target))).toEqual(command(1))
    expect(await count(() => provider.fs.listDir({ targetKey: dir, displayPath: dir } as FsTarget))).toEqual(command(1))
  })

  it('streams with one type check and one download', async () => {
    const target = await seeded('a.txt', 'alpha\n')
    expect(await count(async () => {
      for await (const _ of provider.fs.streamText(target));
    })).toEqual({ ...command(1), 'GET /files': 1 })
  })

  it('creates under createIfAbsent with one upload and one command', async () => {
    await seeded('a.txt', 'alpha\n')
    const fresh = await provider.fs.resolve(join(dir, 'new.txt'))
    expect(await count(() => provider.fs.writeText(fresh, 'x', { kind: 'createIfAbsent' }))).toEqual(commandsAndUploads(1, 1))
    expect(await readFile(join(dir, 'new.txt'), 'utf8')).toBe('x')
  })

  it('writes without a guard with a read, an upload and a publish', async () => {
    const target = await seeded('a.txt', 'alpha\n')
    expect(await count(() => provider.fs.writeText(target, 'beta\n'))).toEqual(commandsAndUploads(2, 1))
    const fresh = await provider.fs.resolve(join(dir, 'new.txt'))
    expect(await count(() => provider.fs.writeText(fresh, 'x'))).toEqual(commandsAndUploads(2, 1))
  })

  it('replaces under replaceIfVersion with a read, an upload and one compare-and-swap', async () => {
    const target = await seeded('a.txt', 'alpha\n')
    const version = (await provider.fs.stat(target))!.version
    expect(await count(() => provider.fs.writeText(target, 'beta\n', { kind: 'replaceIfVersion', version }))).toEqual(commandsAndUploads(2, 1))
  })

  it('edits with a read, an upload and one compare-and-swap', async () => {
    const target = await seeded('a.txt', 'alpha\n')
    const version = (await provider.fs.stat(target))!.version
    expect(await count(() => provider.fs.editText(target, { oldString: 'alpha', newString: 'beta', replaceAll: false }, { version })))
      .toEqual(commandsAndUploads(2, 1))
  })

  it('refuses a stale replacement or edit after one read, uploading nothing', async () => {
    const target = await seeded('a.txt', 'alpha\n')
    const version = (await provider.fs.stat(target))!.version
    await writeFile(join(dir, 'a.txt'), 'changed\n')
    const stale = { kind: 'replaceIfVersion', version } as const
    expect(await count(() => provider.fs.writeText(target, 'x', stale).catch(() => undefined))).toEqual(command(1))
    expect(await count(() => provider.fs.editText(target, { oldString: 'a', newString: 'b', replaceAll: false }, { version }).catch(() => undefined)))
      .toEqual(command(1))
  })

  it('answers a no-op edit from the read alone', async () => {
    const target = await seeded('a.txt', 'alpha\n')
    expect(await count(() => provider.fs.editText(target, { oldString: 'alpha', newString: 'alpha', replaceAll: false }))).toEqual(command(1))
  })
})
