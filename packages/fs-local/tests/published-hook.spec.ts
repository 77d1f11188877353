import { type FsEditOutcome, type FsWriteOutcome } from '@deepseek-ai/dsh-fs'
import { describe, expect, it } from 'vitest'
import { localFixture } from './fixture'

// fs-local tells `hooks.published` the outcome once the new version is known, before it resolves.
describe('hooks.published on the local disk', () => {
  it('hears every create, replace and edit once, before the call resolves, with its outcome', async () => {
    const fx = await localFixture({}, true)
    const target = await fx.fs.resolve('h.txt')
    const heard: Array<{ outcome: FsWriteOutcome | FsEditOutcome; resolved: boolean }> = []
    let resolved = false
    const listen = { published: (outcome: FsWriteOutcome | FsEditOutcome) => void heard.push({ outcome, resolved }) }
    const created = await fx.fs.writeText(target, 'one\n', { expected: { kind: 'createIfAbsent' }, hooks: listen }).finally(() => (resolved = true))
    resolved = false
    const replaced = await fx.fs.writeText(target, 'two\n', { expected: { kind: 'replaceIfVersion', version: created.version }, hooks: listen }).finally(() => (resolved = true))
    resolved = false
    const edited = await fx.fs.editText(target, { oldString: 'two', newString: 'three', replaceAll: false }, { expected: { version: replaced.version }, hooks: listen }).finally(() => (resolved = true))
    expect(heard).toEqual([created, replaced, edited].map((outcome) => ({ outcome, resolved: false })))
    expect(edited.version).toBe((await fx.fs.stat(target))!.version)
  })

  it('does not tell an edit that changes nothing, and a hook that throws does not fail the write', async () => {
    const fx = await localFixture({}, true)
    await fx.external.write('h.txt', 'same\n')
    const target = await fx.fs.resolve('h.txt')
    const heard: unknown[] = []
    await fx.fs.editText(target, { oldString: 'same', newString: 'same', replaceAll: false }, { hooks: { published: (outcome) => void heard.push(outcome) } })
    expect(heard).toEqual([])
    const outcome = await fx.fs.writeText(target, 'new\n', { hooks: { published: () => { throw new Error('a hook that fails') } } })
    expect(outcome.operation).toBe('update')
    expect(new TextDecoder().decode(await fx.external.read('h.txt'))).toBe('new\n')
  })
})
