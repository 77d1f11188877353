import { FsError } from '@deepseek-ai/dsh-fs'
import { Context } from 'cordis'
import { Sandbox } from 'e2b'
import { startEnvdEmulator } from '@deepseek-ai/dsh-envd-emulator'
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import E2BFileSystem, { E2BFileSystem as Named } from '../src'
import { startProvider, useEmulatedSandbox } from './support/sandbox'

const sandbox = useEmulatedSandbox()
const emulated = () => ({ debug: true, sandboxUrl: sandbox.emulator.url })

describe('E2BFileSystem as a Cordis plugin', () => {
  it('is both the default and the named export', () => {
    expect(Named).toBe(E2BFileSystem)
  })

  it('rejects a config that names no sandbox, or more than one source', async () => {
    for (const config of [{}, { sandboxId: 'a', template: 'base' }, { sandboxId: '' }, { requestTimeoutMs: -1, sandboxId: 'a' },
      { sandboxId: 'a', workspaces: { w: 'b' } }, { workspaces: { 'no spaces': 'b' } }, { workspaces: { w: { sandboxId: 'b', port: 1 } } }]) {
      const ctx = new Context()
      await expect(ctx.plugin(E2BFileSystem, config as never)).rejects.toThrow()
      expect(ctx.get('fs')).toBeUndefined()
    }
  })

  it('provides ctx.fs only once the sandbox is connected and probed', async () => {
    const ctx = new Context()
    const seen: boolean[] = []
    ctx.plugin({ inject: ['fs'], apply: (inner: Context) => void seen.push(typeof (inner.fs as E2BFileSystem).sandbox.sandboxId === 'string') })
    const fiber = ctx.plugin(E2BFileSystem, { sandboxId: 'emulated', ...emulated() })
    expect(ctx.get('fs')).toBeUndefined()
    await fiber
    expect(ctx.get('fs')).toBeDefined()
    await new Promise((settle) => setTimeout(settle, 10))
    expect(seen).toEqual([true])
    await fiber.dispose()
    expect(ctx.get('fs')).toBeUndefined()
  })

  it('never provides ctx.fs when the sandbox cannot be reached', async () => {
    const ctx = new Context()
    const fiber = ctx.plugin(E2BFileSystem, { sandboxId: 'emulated', debug: true, sandboxUrl: 'http://127.0.0.1:1', requestTimeoutMs: 2000 })
    await fiber.then(() => undefined, () => undefined)
    expect(ctx.get('fs')).toBeUndefined()
  })

  it('works over a Sandbox instance handed over programmatically', async () => {
    const instance = await Sandbox.connect('emulated', emulated())
    const provider = await startProvider(sandbox.emulator.url, { sandbox: instance, sandboxId: undefined, debug: undefined, sandboxUrl: undefined })
    expect(provider.fs.sandbox).toBe(instance)
    await provider.fs.writeText(await provider.fs.resolve('handed-over.txt'), 'ok')
    expect(await readFile(join(sandbox.root, 'handed-over.txt'), 'utf8')).toBe('ok')
    await provider.dispose()
  })

  it('owns (and kills on dispose) only a sandbox it created from a template', async () => {
    const effects = async (config: object) => {
      const ctx = new Context()
      const fiber = ctx.plugin(E2BFileSystem, { ...emulated(), ...config })
      await fiber
      const labels = fiber.getEffects().map((effect: { label: string }) => effect.label)
      await fiber.dispose()
      return labels
    }
    expect(await effects({ template: 'base' })).toContain('e2b sandbox')
    expect(await effects({ sandboxId: 'emulated' })).not.toContain('e2b sandbox')
  })

  it('resolves relative paths against a configured cwd, itself relative to the home, and ~ against the home', async () => {
    await mkdir(join(sandbox.root, 'work', 'sub'), { recursive: true })
    const provider = await startProvider(sandbox.emulator.url, { cwd: 'work' })
    expect((await provider.fs.resolve('a.txt')).targetKey).toBe(join(sandbox.root, 'work', 'a.txt'))
    expect((await provider.fs.resolve('a.txt', { cwd: 'sub' })).targetKey).toBe(join(sandbox.root, 'work', 'sub', 'a.txt'))
    expect((await provider.fs.resolve('~/b.txt')).targetKey).toBe(join(sandbox.root, 'b.txt'))
    await provider.dispose()
  })

  it('reports operations on a sandbox that went away as FS_IO_ERROR', async () => {
    const root = await mkdtemp(join(tmpdir(), 'dsh-fs-e2b-gone-'))
    const emulator = await startEnvdEmulator({ root })
    const provider = await startProvider(emulator.url, { requestTimeoutMs: 3000 })
    const target = await provider.fs.resolve('x.txt')
    await emulator.close()
    const results = await Promise.allSettled([provider.fs.stat(target), provider.fs.readText(target), provider.fs.writeText(target, 'x')])
    for (const result of results) {
      expect(result.status).toBe('rejected')
      if (result.status === 'rejected') expect(FsError.is(result.reason, 'FS_IO_ERROR'), String(result.reason)).toBe(true)
    }
    await provider.dispose()
    await rm(root, { recursive: true, force: true })
  })
})
