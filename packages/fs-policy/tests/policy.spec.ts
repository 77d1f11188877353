import { type FsObservation, type FsTarget, type FsTargetKey, type FsVersion, FsError } from '@deepseek-ai/dsh-fs'
import { MemoryFileSystem } from '@deepseek-ai/dsh-fs/memory'
import { Context } from 'cordis'
import { beforeEach, describe, expect, it } from 'vitest'
import * as mod from '../src/index'

const policy = mod.default ?? mod

const target = (path: string, key = path): FsTarget => ({ targetKey: key as FsTargetKey, displayPath: path })
const v = (version: string) => version as FsVersion
const present = (version: string): FsObservation => ({ kind: 'present', version: v(version) })
const absent: FsObservation = { kind: 'absent' }
/** An actor shaped like a tool execution; the policy must only look at `agent.session`. */
const actor = (session: object) => ({ callId: 'c', name: 'edit', agent: { session } })

let root: Context
let session: object

beforeEach(async () => {
  root = new Context()
  session = { cwd: '/work' }
  await root.plugin(policy)
})

function writeIntent(t: FsTarget, who: object | undefined = actor(session)) {
  return root.waterfall('fs/write-intent', t, who, () => undefined)
}

function editIntent(t: FsTarget, who: object | undefined = actor(session)) {
  return root.waterfall('fs/edit-intent', t, who, () => undefined)
}

async function editCode(t: FsTarget, who?: object): Promise<string | undefined> {
  try {
    await editIntent(t, who)
    return undefined
  } catch (error) {
    return FsError.is(error) ? error.code : String(error)
  }
}

describe('the decision table', () => {
  it('lets an unseen target only be created and refuses to edit it with FS_NOT_OBSERVED', async () => {
    expect(await writeIntent(target('/a'))).toEqual({ kind: 'createIfAbsent' })
    expect(await editCode(target('/a'))).toBe('FS_NOT_OBSERVED')
  })

  it('lets a target seen absent only be created and refuses to edit it with FS_NOT_FOUND', async () => {
    root.emit('fs/observed', target('/a'), absent, actor(session))
    expect(await writeIntent(target('/a'))).toEqual({ kind: 'createIfAbsent' })
    expect(await editCode(target('/a'))).toBe('FS_NOT_FOUND')
  })

  it('guards a write and an edit of a target seen present with the version seen', async () => {
    root.emit('fs/observed', target('/a'), present('v1'), actor(session))
    expect(await writeIntent(target('/a'))).toEqual({ kind: 'replaceIfVersion', version: 'v1' })
    expect(await editIntent(target('/a'))).toEqual({ version: 'v1' })
  })

  it('keeps only the latest observation: a read that finds absence replaces a version', async () => {
    root.emit('fs/observed', target('/a'), present('v1'), actor(session))
    root.emit('fs/observed', target('/a'), absent, actor(session))
    expect(await writeIntent(target('/a'))).toEqual({ kind: 'createIfAbsent' })
    expect(await editCode(target('/a'))).toBe('FS_NOT_FOUND')
    root.emit('fs/observed', target('/a'), present('v2'), actor(session))
    expect(await editIntent(target('/a'))).toEqual({ version: 'v2' })
  })

  it('names the path in the errors it throws', async () => {
    await expect(editIntent(target('/src/a.ts'))).rejects.toThrow('/src/a.ts has not been read in this session')
  })

  it('keys state by target identity, not by how the path was spelled', async () => {
    root.emit('fs/observed', target('./a.txt', '/w/a.txt'), present('v1'), actor(session))
    expect(await editIntent(target('/w/a.txt'))).toEqual({ version: 'v1' })
  })

  it('does not keep a reference to the observation object it was given', async () => {
    const observation = { kind: 'present', version: v('v1') } as { kind: 'present'; version: FsVersion }
    root.emit('fs/observed', target('/a'), observation, actor(session))
    observation.version = v('forged')
    expect(await editIntent(target('/a'))).toEqual({ version: 'v1' })
  })
})

describe('owners', () => {
  it('keeps two sessions isolated', async () => {
    const other = {}
    root.emit('fs/observed', target('/a'), present('v1'), actor(session))
    root.emit('fs/observed', target('/b'), absent, actor(other))
    expect(await editCode(target('/a'), actor(other))).toBe('FS_NOT_OBSERVED')
    expect(await writeIntent(target('/a'), actor(other))).toEqual({ kind: 'createIfAbsent' })
    expect(await editCode(target('/b'), actor(session))).toBe('FS_NOT_OBSERVED')
    expect(await editCode(target('/b'), actor(other))).toBe('FS_NOT_FOUND')
  })

  it('shares state between calls of one session whatever the actor object', async () => {
    root.emit('fs/observed', target('/a'), present('v1'), { agent: { session } })
    expect(await editIntent(target('/a'), { callId: 'another call', agent: { session } })).toEqual({ version: 'v1' })
  })

  it('treats an actor without a session as having seen nothing and records nothing for it', async () => {
    for (const who of [undefined, {}, { agent: {} }, { agent: { session: 'not an object' } }]) {
      root.emit('fs/observed', target('/a'), present('v1'), who)
      expect(await writeIntent(target('/a'), who)).toEqual({ kind: 'createIfAbsent' })
      expect(await editCode(target('/a'), who)).toBe('FS_NOT_OBSERVED')
    }
  })
})

describe('the plugin', () => {
  it('answers without calling next(): later listeners and the default never run', async () => {
    let reached = 0
    root.on('fs/write-intent', async () => { reached++; return undefined })
    root.on('fs/edit-intent', async () => { reached++; return undefined })
    let defaults = 0
    root.emit('fs/observed', target('/a'), present('v1'), actor(session))
    await root.waterfall('fs/write-intent', target('/a'), actor(session), () => { defaults++; return undefined })
    await root.waterfall('fs/edit-intent', target('/a'), actor(session), () => { defaults++; return undefined })
    await root.waterfall('fs/edit-intent', target('/b'), actor(session), () => { defaults++; return undefined }).catch(() => {})
    expect({ reached, defaults }).toEqual({ reached: 0, defaults: 0 })
  })

  it('drops all state when disposed and leaves the events to their defaults', async () => {
    const scope = new Context()
    const fiber = await scope.plugin(policy)
    scope.emit('fs/observed', target('/a'), present('v1'), actor(session))
    await fiber.dispose()
    expect(await scope.waterfall('fs/write-intent', target('/a'), actor(session), () => undefined)).toBeUndefined()
    expect(await scope.waterfall('fs/edit-intent', target('/a'), actor(session), () => undefined)).toBeUndefined()
    await scope.plugin(policy)
    await expect(scope.waterfall('fs/edit-intent', target('/a'), actor(session), () => undefined)).rejects.toMatchObject({ code: 'FS_NOT_OBSERVED' })
  })

  it('declares no inject and provides no service', () => {
    expect((policy as { inject?: unknown }).inject).toBeUndefined()
    const before = new Set(Object.keys(new Context().reflect.props))
    expect(Object.keys(root.reflect.props).filter((key) => !before.has(key))).toEqual([])
  })
})

describe('no I/O', () => {
  /** A provider that counts every call made to it, whatever the method. */
  class CountingFileSystem extends MemoryFileSystem {
    calls: string[] = []
  }
  for (const method of ['resolve', 'stat', 'readText', 'streamText', 'listDir', 'writeText', 'editText'] as const) {
    const original = MemoryFileSystem.prototype[method] as (...args: unknown[]) => unknown
    ;(CountingFileSystem.prototype as unknown as Record<string, unknown>)[method] = function (this: CountingFileSystem, ...args: unknown[]) {
      this.calls.push(method)
      return original.apply(this, args)
    }
  }

  it('never touches ctx.fs, even when a provider is loaded', async () => {
    const scope = new Context()
    const fiber = await scope.plugin(CountingFileSystem)
    await scope.plugin(policy)
    const fs = scope.get('fs') as CountingFileSystem
    const who = actor(session)
    scope.emit('fs/observed', target('/a'), present('v1'), who)
    scope.emit('fs/observed', target('/b'), absent, who)
    await scope.waterfall('fs/write-intent', target('/a'), who, () => undefined)
    await scope.waterfall('fs/write-intent', target('/c'), who, () => undefined)
    await scope.waterfall('fs/edit-intent', target('/a'), who, () => undefined)
    await scope.waterfall('fs/edit-intent', target('/b'), who, () => undefined).catch(() => {})
    await scope.waterfall('fs/edit-intent', target('/c'), who, () => undefined).catch(() => {})
    expect(fs.calls).toEqual([])
    await fiber.dispose()
  })

  it('works with no filesystem service at all', async () => {
    expect(root.get('fs')).toBeUndefined()
    root.emit('fs/observed', target('/a'), present('v1'), actor(session))
    expect(await editIntent(target('/a'))).toEqual({ version: 'v1' })
  })
})
