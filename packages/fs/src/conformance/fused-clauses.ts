import { expect, it } from 'vitest'
import type { FsEditOutcome, FsWriteOutcome } from '../types'
import { type Harness, expectFsError, needs, within, type ClauseGroup } from './harness'

export const fused: ClauseGroup = { title: 'inspect and resolveForMutation', clauses: fusedClauses }

/**
 * `inspect`, `resolveForMutation` and `resolveForDiscovery` answer what the calls they fuse would: every provider runs
 * these, so an override is held to the default's results.
 */
export function fusedClauses(h: Harness): void {
  it('inspects a small file as resolve, stat and readText would', async () => {
    await h.external.write('f.txt', '\uFEFFhéllo\r\n')
    const inspected = await h.fs.inspect(h.fixture.path('f.txt'), { textUpTo: 1024 })
    const target = await h.target('f.txt')
    expect(inspected.target.targetKey).toBe(target.targetKey)
    expect(inspected.info).toEqual(await h.fs.stat(target))
    expect(inspected.text).toBe(await h.fs.readText(target))
  })

  it('inspects without the text beyond textUpTo, or when no text was asked for', async () => {
    await h.external.write('f.txt', '12345')
    expect(await h.fs.inspect(h.fixture.path('f.txt'), { textUpTo: 5 })).toHaveProperty('text', '12345')
    expect(await h.fs.inspect(h.fixture.path('f.txt'), { textUpTo: 4 })).not.toHaveProperty('text')
    expect(await h.fs.inspect(h.fixture.path('f.txt'), { textUpTo: Infinity })).toHaveProperty('text', '12345')
    expect(await h.fs.inspect(h.fixture.path('f.txt'), { textUpTo: -1 })).not.toHaveProperty('text')
    const plain = await h.fs.inspect(h.fixture.path('f.txt'))
    expect(plain).not.toHaveProperty('text')
    expect(plain.info).toMatchObject({ type: 'file', size: 5 })
  })

  it('inspects as bytes: the raw bytes of any regular file within the bound, never decoded', async () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, 0x89, 0x50, 0x4e, 0x47, 0, 0xff])
    await h.external.write('raw.bin', bytes)
    const inspected = await h.fs.inspect(h.fixture.path('raw.bin'), { textUpTo: 9, as: 'bytes' })
    expect(inspected.info).toEqual(await h.fs.stat(await h.target('raw.bin')))
    expect(Buffer.from(inspected.bytes!)).toEqual(Buffer.from(bytes))
    expect(inspected).not.toHaveProperty('text')
    expect(await h.fs.inspect(h.fixture.path('raw.bin'), { textUpTo: 8, as: 'bytes' })).not.toHaveProperty('bytes')
    await h.external.write('empty.bin', new Uint8Array(0))
    expect((await h.fs.inspect(h.fixture.path('empty.bin'), { textUpTo: 8, as: 'bytes' })).bytes).toHaveLength(0)
  })

  it('inspects a missing path as no info, with the key it will keep once created', async () => {
    const inspected = await h.fs.inspect(h.fixture.path('missing/new.txt'), { textUpTo: 1024 })
    expect(inspected.info).toBeUndefined()
    await h.fs.writeText(inspected.target, 'x')
    expect((await h.target('missing/new.txt')).targetKey).toBe(inspected.target.targetKey)
  })

  it('inspects a directory and a binary file with the same answers as the separate calls', async () => {
    await h.external.mkdir('d')
    expect((await h.fs.inspect(h.fixture.path('d'), { textUpTo: 1024 })).info).toMatchObject({ type: 'directory' })
    await h.external.write('bin', new Uint8Array([0x61, 0, 0x62]))
    await expectFsError(h.fs.inspect(h.fixture.path('bin'), { textUpTo: 1024 }), 'FS_NOT_TEXT')
  })

  needs(h, 'specialFiles')('inspects a FIFO as other without opening it', async () => {
    await h.external.mkfifo!('pipe')
    const inspected = await within(3000, h.fs.inspect(h.fixture.path('pipe'), { textUpTo: 1024 }))
    expect(inspected.info).toMatchObject({ type: 'other' })
    expect(inspected).not.toHaveProperty('text')
  })

  needs(h, 'symlinks')('inspects a symlink under the key of the file it points to', async () => {
    await h.external.write('real.txt', 'r')
    await h.external.symlink!('real.txt', 'link.txt')
    const inspected = await h.fs.inspect(h.fixture.path('link.txt'), { textUpTo: 1024 })
    expect(inspected.target.targetKey).toBe((await h.target('real.txt')).targetKey)
    expect(inspected.text).toBe('r')
  })

  it('walks and searches a discovery root as the resolved directory, and fails as resolve and walk would', async () => {
    await h.external.write('tree/a/b.txt', 'needle\n')
    const named = await h.fs.resolveForDiscovery(h.fixture.path('tree'))
    const resolved = await h.target('tree')
    expect(named.displayPath).toBe(resolved.displayPath)
    expect(await h.fs.walk(named, { limit: 10 })).toEqual(await h.fs.walk(resolved, { limit: 10 }))
    const search = { pattern: 'needle', mode: 'lines', limit: 10 } as const
    expect(await h.fs.search(named, search)).toEqual(await h.fs.search(resolved, search))
    await expectFsError(h.fs.resolveForDiscovery(h.fixture.path('missing')).then((root) => h.fs.walk(root, { limit: 10 })), 'FS_NOT_FOUND')
    await expectFsError(h.fs.resolveForDiscovery(h.fixture.path('tree/a/b.txt')).then((root) => h.fs.walk(root, { limit: 10 })), 'FS_NOT_DIRECTORY')
  })

  needs(h, 'symlinks')('walks a discovery root named through a directory symlink as the directory it leads to', async () => {
    await h.external.write('real/x.txt', 'x')
    await h.external.symlink!('real', 'alias')
    const named = await h.fs.resolveForDiscovery(h.fixture.path('alias'))
    expect((await h.fs.walk(named, { limit: 10 })).entries.map((entry) => entry.path)).toEqual(['x.txt'])
  })

  it('names a mutation target with the key resolve gives, once the path was inspected', async () => {
    await h.external.write('dir/a.txt', 'a')
    await h.fs.inspect(h.fixture.path('dir/a.txt'), { textUpTo: 1024 })
    for (const name of ['dir/a.txt', 'dir/new.txt']) {
      expect((await h.fs.resolveForMutation(h.fixture.path(name))).targetKey).toBe((await h.target(name)).targetKey)
    }
  })

  needs(h, 'symlinks')('never writes the old file through a mutation target of a symlink re-pointed since', async () => {
    await h.external.write('one.txt', 'one')
    await h.external.write('two.txt', 'two')
    await h.external.symlink!('one.txt', 'link.txt')
    const seen = await h.fs.inspect(h.fixture.path('link.txt'), { textUpTo: 1024 })
    await h.external.remove('link.txt')
    await h.external.symlink!('two.txt', 'link.txt')
    const target = await h.fs.resolveForMutation(h.fixture.path('link.txt'))
    // Named from memory (the old key) the write is refused; named afresh it meets another version.
    await expectFsError(h.fs.writeText(target, 'new', { expected: { kind: 'replaceIfVersion', version: seen.info!.version } }), 'FS_STALE_VERSION')
    expect([await h.external.read('one.txt'), await h.external.read('two.txt')].map((bytes) => new TextDecoder().decode(bytes)))
      .toEqual(['one', 'two'])
  })

  it('tells hooks.published, if at all, once and before resolving, exactly the outcome of the write or edit', async () => {
    // Per call: what its hook heard, and whether the call had resolved by then (a hook called
    // late shows up as resolved during the short wait after it).
    const told = async <T>(call: (hooks: { published(outcome: T): void }) => Promise<T>) => {
      const seen: Array<{ outcome: T; resolved: boolean }> = []
      let resolved = false
      const outcome = await call({ published: (heard) => void seen.push({ outcome: structuredClone(heard), resolved }) }).finally(() => (resolved = true))
      await new Promise((resolve) => setTimeout(resolve, 20))
      return { outcome, seen }
    }
    const target = await h.target('hooked.txt')
    const created = await told<FsWriteOutcome>((hooks) => h.fs.writeText(target, 'one\n', { expected: { kind: 'createIfAbsent' }, hooks }))
    const replaced = await told<FsWriteOutcome>((hooks) => h.fs.writeText(target, 'two\n', { expected: { kind: 'replaceIfVersion', version: created.outcome.version }, hooks }))
    const edited = await told<FsEditOutcome>((hooks) => h.fs.editText(target, { oldString: 'two', newString: 'three', replaceAll: false }, { expected: { version: replaced.outcome.version }, hooks }))
    for (const { outcome, seen } of [created, replaced, edited] as Array<{ outcome: unknown; seen: unknown[] }>) {
      expect(seen.length).toBeLessThanOrEqual(1)
      if (seen.length === 1) expect(seen[0]).toEqual({ outcome, resolved: false })
    }
    expect(await h.fs.readText(target)).toBe('three\n')
  })

  it('refuses a stale write or edit without telling hooks.published', async () => {
    await h.external.write('stale.txt', 'a\n')
    const target = await h.target('stale.txt')
    const seen = (await h.fs.stat(target))!.version
    await h.external.write('stale.txt', 'b and more\n')
    const heard: unknown[] = []
    const listen = { published: (outcome: unknown) => void heard.push(outcome) }
    await expectFsError(h.fs.writeText(target, 'c\n', { expected: { kind: 'replaceIfVersion', version: seen }, hooks: listen }), 'FS_STALE_VERSION')
    await expectFsError(h.fs.editText(target, { oldString: 'b', newString: 'c', replaceAll: false }, { expected: { version: seen }, hooks: listen }), 'FS_STALE_VERSION')
    expect(heard).toEqual([])
  })
}
