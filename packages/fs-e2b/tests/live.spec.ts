import { FsError } from '@deepseek-ai/dsh-fs'
import { Context } from 'cordis'
import type { Sandbox } from 'e2b'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import E2BFileSystem from '../src'

// Against the real E2B cloud: runs only with E2B_API_KEY set, and reports itself skipped otherwise.
// The plugin creates a sandbox from `E2B_TEMPLATE` (default `base`) and kills it on dispose.
const live = Boolean(process.env.E2B_API_KEY)

describe.skipIf(!live)('E2BFileSystem on a live E2B sandbox', { timeout: 120_000 }, () => {
  let ctx: Context
  let fiber: ReturnType<Context['plugin']>
  let fs: E2BFileSystem
  let sandbox: Sandbox
  const dir = `dsh-live-${Date.now()}`

  beforeAll(async () => {
    ctx = new Context()
    fiber = ctx.plugin(E2BFileSystem, { template: process.env.E2B_TEMPLATE ?? 'base' })
    await fiber
    fs = ctx.get('fs') as E2BFileSystem
    sandbox = fs.sandbox
    await sandbox.commands.run(`mkdir -p ${dir}`)
  }, 120_000)
  afterAll(async () => {
    await fiber?.dispose()
  })

  it('creates, reads, edits and refuses a guarded create over the result', async () => {
    const target = await fs.resolve(`${dir}/a.txt`)
    const created = await fs.writeText(target, 'one\r\ntwo\r\n', { expected: { kind: 'createIfAbsent' } })
    expect(await fs.readText(target)).toBe('one\r\ntwo\r\n')
    const edited = await fs.editText(target, { oldString: 'two', newString: 'a\nb', replaceAll: false }, { expected: { version: created.version } })
    expect(edited.after).toBe('one\r\na\r\nb\r\n')
    await expect(fs.writeText(target, 'x', { expected: { kind: 'createIfAbsent' } })).rejects.toSatisfy((error) => FsError.is(error, 'FS_NOT_OBSERVED'))
  })

  it('sees a same-size rewrite that restores the mtime', async () => {
    const target = await fs.resolve(`${dir}/v.txt`)
    const { version } = await fs.writeText(target, 'aaaa')
    await sandbox.commands.run(`cd ${dir} && m=$(stat -c %y v.txt) && printf bbbb > v.txt && touch -d "$m" v.txt`)
    expect((await fs.stat(target))!.version).not.toBe(version)
    await expect(fs.writeText(target, 'cccc', { expected: { kind: 'replaceIfVersion', version } })).rejects.toSatisfy((error) => FsError.is(error, 'FS_STALE_VERSION'))
  })

  it('refuses a FIFO without blocking', async () => {
    await sandbox.commands.run(`mkfifo ${dir}/pipe`)
    await expect(fs.readText(await fs.resolve(`${dir}/pipe`))).rejects.toSatisfy((error) => FsError.is(error, 'FS_NOT_REGULAR_FILE'))
  })

})
