import { FileSystem, type FsCapabilities, type FsTarget } from '@deepseek-ai/dsh-fs'
import { describeConformance } from '@deepseek-ai/dsh-fs/conformance'
import { type FsBackend, ForwardingFileSystem } from '@deepseek-ai/dsh-fs/kit'
import { MemoryFileSystem } from '@deepseek-ai/dsh-fs/memory'
import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { Harness } from '../src/conformance/harness'
import { memoryFixture } from './support/memory-fixture'

interface ForwardedConfig {
  backend: FsBackend
  capabilities: FsCapabilities
}

/** A provider that is nothing but its declaration and a backend: what `ForwardingFileSystem` is for. */
class Forwarded extends ForwardingFileSystem {
  private readonly inner: FsBackend

  constructor(ctx: Context, config: ForwardedConfig) {
    super(ctx, config.capabilities)
    this.inner = config.backend
  }

  get backend(): FsBackend {
    return this.inner
  }
}

/** The memory fixture, with the provider under test forwarding every call to the memory provider. */
async function forwardedFixture(capabilities: FsCapabilities, backendOf: (memory: MemoryFileSystem) => FsBackend = (memory) => memory) {
  const fixture = await memoryFixture()
  const ctx = new Context()
  const fiber = ctx.plugin(Forwarded, { backend: backendOf(fixture.fs), capabilities })
  await fiber
  return { ...fixture, fs: ctx.get('fs') as Forwarded, dispose: async () => { await fiber.dispose(); await fixture.dispose() } }
}

// `remove` and `rename` left out of the suite's capabilities: the suite follows the provider's declaration.
describeConformance('ForwardingFileSystem over the memory provider', {
  capabilities: { symlinks: false, specialFiles: false, restoreMtime: false, readOnlyFiles: true, editLines: true },
  setup: () => forwardedFixture({ remove: true, rename: true }),
})

// Declared without them, its removal clauses are skipped (a clause that ran would call a missing method and fail).
describeConformance('ForwardingFileSystem declaring neither remove nor rename', {
  capabilities: { symlinks: false, specialFiles: false, restoreMtime: false, readOnlyFiles: true },
  groups: ['removal'],
  setup: () => forwardedFixture({ remove: false, rename: false }),
})

describe('capabilities declared on the provider', () => {
  it('a forwarding provider has remove and rename exactly when it declares them', async () => {
    const without = await forwardedFixture({ remove: false, rename: false })
    expect(without.fs.capabilities).toEqual({ remove: false, rename: false })
    expect([typeof without.fs.remove, typeof without.fs.rename]).toEqual(['undefined', 'undefined'])
    const half = await forwardedFixture({ remove: true, rename: false })
    expect([typeof half.fs.remove, typeof half.fs.rename]).toEqual(['function', 'undefined'])
    expect(Object.isFrozen(half.fs.capabilities)).toBe(true)
    await Promise.all([without.dispose(), half.dispose()])
  })

  it('a provider that declares nothing is taken to have the optional methods it implements', () => {
    class OlderProvider extends MemoryFileSystem {}
    Object.defineProperty(OlderProvider.prototype, 'remove', { value: undefined })
    expect(new MemoryFileSystem(new Context()).capabilities).toEqual({ remove: true, rename: true })
    expect(new OlderProvider(new Context()).capabilities).toEqual({ remove: false, rename: true })
  })

  it('the conformance suite refuses a declaration that does not match the methods', async () => {
    const fixture = await memoryFixture()
    const lying = Object.create(fixture.fs, { capabilities: { value: { remove: false, rename: true } } }) as MemoryFileSystem
    const base = { symlinks: false, specialFiles: false, restoreMtime: false }
    expect(() => Harness.of(base, { ...fixture, fs: lying })).toThrow(/implements remove, but its capabilities\.remove is not true/)
    const boasting = Object.create(fixture.fs, { capabilities: { value: { remove: true, rename: true } }, remove: { value: undefined } }) as MemoryFileSystem
    expect(() => Harness.of(base, { ...fixture, fs: boasting })).toThrow(/declares capabilities\.remove, but has no remove method/)
    await fixture.dispose()
  })
})

describe('ForwardingFileSystem', () => {
  it('takes the backend\'s own optional method when it has one, and the contract\'s default otherwise', async () => {
    const walked: string[] = []
    const fixture = await forwardedFixture({ remove: true, rename: true }, (memory) => ({
      resolve: (path, opts) => memory.resolve(path, opts),
      stat: (target, signal) => memory.stat(target, signal),
      readText: (target, signal) => memory.readText(target, signal),
      streamBytes: (target, signal) => memory.streamBytes(target, signal),
      listDir: (target, signal, opts) => memory.listDir(target, signal, opts),
      writeText: (target, content, opts) => memory.writeText(target, content, opts),
      editText: (target, edit, opts) => memory.editText(target, edit, opts),
      remove: (target, opts) => memory.remove(target, opts),
      rename: (source, destination, opts) => memory.rename(source, destination, opts),
      walk: (root, options, signal) => {
        walked.push(root.displayPath)
        return memory.walk(root, options, signal)
      },
    }))
    await fixture.external.write('a.txt', 'one two\n')
    const root = await fixture.fs.resolve(fixture.path(''))
    const listing = await fixture.fs.walk(root, { limit: 10 })
    expect(listing.entries.map((entry) => entry.path)).toEqual(['a.txt'])
    expect(walked).toEqual([root.displayPath])
    // No editTextMany in the backend: the contract's default, built from the forwarded methods, edits the file.
    const target = await fixture.fs.resolve(fixture.path('a.txt'))
    await fixture.fs.editTextMany(target, [{ oldString: 'one', newString: '1', replaceAll: false }, { oldString: 'two', newString: '2', replaceAll: false }])
    expect(new TextDecoder().decode(await fixture.external.read('a.txt'))).toBe('1 2\n')
    await fixture.dispose()
  })

  it('keeps a method the provider class overrides itself', async () => {
    class OwnSearch extends Forwarded {
      override search(): never {
        throw new Error('the class\'s own search')
      }
    }
    const fixture = await memoryFixture()
    const fs = new OwnSearch(new Context(), { backend: fixture.fs, capabilities: { remove: true, rename: true } })
    expect(fs.search).toBe(OwnSearch.prototype.search)
    expect(fs.walk).not.toBe(FileSystem.prototype.walk)
    expect(Object.hasOwn(fs, 'walk')).toBe(true)
    await fixture.dispose()
  })

  it('keeps an overridden required method too, and forwards the rest', async () => {
    class OwnRead extends Forwarded {
      override readText(_target: FsTarget): Promise<string> {
        return Promise.resolve('the class\'s own read')
      }
    }
    const fixture = await memoryFixture()
    await fixture.external.write('a.txt', 'on disk\n')
    const fs = new OwnRead(new Context(), { backend: fixture.fs, capabilities: { remove: true, rename: true } })
    const target = await fs.resolve(fixture.path('a.txt'))
    expect(await fs.readText(target)).toBe('the class\'s own read')
    expect((await fs.stat(target))?.size).toBe(8)
    await fixture.dispose()
  })

  it('is reached through ctx.fs without a per-call shadow: the same method each time, called on the provider', async () => {
    const fixture = await forwardedFixture({ remove: true, rename: true })
    const ctx = new Context()
    const fiber = ctx.plugin(Forwarded, { backend: fixture.fs, capabilities: { remove: true, rename: true } })
    await fiber
    const fs = ctx.get('fs') as Forwarded
    // A shadowed service answers a new proxy of the method at every access.
    expect(fs.writeText).toBe(fs.writeText)
    await fixture.external.write('b.txt', 'x\n')
    expect(await fs.readText(await fs.resolve(fixture.path('b.txt')))).toBe('x\n')
    await fiber.dispose()
    await fixture.dispose()
  })
})
