import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { SandboxFleet, type SandboxFleetOptions } from '../src'
import { freshDir, useEmulatedSandbox } from './support/sandbox'

// One emulator answers for every sandbox id (it ignores the id), so each "sandbox" here is the
// same emulated machine reached under another id: what the fleet keeps per id is what is tested.
const sandbox = useEmulatedSandbox()
let fleet: SandboxFleet | undefined
afterEach(() => fleet?.close())

/** A fleet on a clock the test moves by hand. */
function handClockFleet(options: SandboxFleetOptions = {}) {
  const clock = { now: 0 }
  fleet = new SandboxFleet({ connection: { debug: true, sandboxUrl: sandbox.emulator.url }, now: () => clock.now, ...options })
  return { fleet, clock }
}

const processStarts = () => sandbox.emulator.requests.filter((r) => r.path.endsWith('/Start')).length

it('drops a sandbox unused for idleMs and connects it again, transparently, on its next use', async () => {
  const dir = await freshDir(sandbox.root)
  const { fleet, clock } = handClockFleet({ idleMs: 1000 })
  const file = join(dir, 'a.txt')
  await fleet.use('sb-1', async (fs) => fs.writeText(await fs.resolve(file), 'first\n', { expected: { kind: 'createIfAbsent' } }))
  expect([fleet.open, fleet.connects]).toEqual([1, 1])

  clock.now = 999
  expect(fleet.sweep()).toBe(0)
  clock.now = 1000
  expect(fleet.sweep()).toBe(1)
  expect(fleet.open).toBe(0)

  const edit = (from: string, to: string) => fleet.use('sb-1', async (fs) => {
    const target = await fs.resolve(file)
    const before = await fs.stat(target)
    await fs.editText(target, { oldString: from, newString: to, replaceAll: false }, { expected: { version: before!.version } })
    return fs.readText(target)
  })
  // The next call connects (and probes) again, then works as before: it reads and edits the same file.
  sandbox.emulator.resetRequests()
  expect(await edit('first', 'second')).toBe('second\n')
  expect(await readFile(file, 'utf8')).toBe('second\n')
  expect([fleet.open, fleet.connects]).toEqual([1, 2])
  const reconnected = processStarts()
  // The same call on the still-connected sandbox: one command fewer, the probe.
  sandbox.emulator.resetRequests()
  expect(await edit('second', 'third')).toBe('third\n')
  expect(processStarts()).toBe(reconnected - 1)
  expect(fleet.connects).toBe(2)
})

it('never drops a sandbox while one of its calls runs', async () => {
  const dir = await freshDir(sandbox.root)
  await writeFile(join(dir, 'b.txt'), 'b\n')
  const { fleet, clock } = handClockFleet({ idleMs: 10 })
  const swept = await fleet.use('sb-busy', async (fs) => {
    clock.now = 1_000_000
    const dropped = fleet.sweep()
    await fs.readText(await fs.resolve(join(dir, 'b.txt')))
    return dropped
  })
  expect([swept, fleet.open]).toEqual([0, 1])
  // Its idle time counts from the end of the call.
  clock.now += 9
  expect(fleet.sweep()).toBe(0)
  clock.now += 1
  expect(fleet.sweep()).toBe(1)
})

it('keeps at most maxOpen sandboxes connected, dropping the least recently used', async () => {
  const dir = await freshDir(sandbox.root)
  await mkdir(join(dir, 'd'))
  const { fleet } = handClockFleet({ idleMs: 0, maxOpen: 3 })
  const list = (id: string) => fleet.use(id, async (fs) => (await fs.listDir(await fs.resolve(join(dir, 'd')))).entries.length)
  for (const id of ['s1', 's2', 's3', 's1', 's4', 's5']) expect(await list(id)).toBe(0)
  expect(fleet.open).toBe(3)
  // s1 was used after s2 and s3, so s2 and s3 went; s1 is still connected, s2 connects again.
  expect(fleet.connects).toBe(5)
  await list('s1')
  expect(fleet.connects).toBe(5)
  await list('s2')
  expect([fleet.open, fleet.connects]).toEqual([3, 6])
})

it('does not keep a sandbox that failed to connect: its next use tries again', async () => {
  const { fleet } = handClockFleet()
  // A sandbox whose probe fails: nothing listens at this URL.
  const dead = new SandboxFleet({ connection: { debug: true, sandboxUrl: 'http://127.0.0.1:9', requestTimeoutMs: 5000 }, now: () => 0 })
  await expect(dead.use('gone', async () => 'never')).rejects.toMatchObject({ code: 'FS_IO_ERROR' })
  expect(dead.open).toBe(0)
  await expect(dead.use('gone', async () => 'never')).rejects.toMatchObject({ code: 'FS_IO_ERROR' })
  expect(dead.connects).toBe(2)
  dead.close()
  expect(fleet.open).toBe(0)
})
