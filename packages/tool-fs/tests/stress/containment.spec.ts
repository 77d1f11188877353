import { watch } from 'node:fs'
import { readFile, stat, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { recordSection } from '../../../../scripts/reliability/record'
import { snapshotTree, treeDiff } from '../../../../scripts/reliability/tree'
import { type Escape, ESCAPES } from './escapes'
import { rootedStack, textOf, TYPED_CODES } from './stack'

const SECRET = 'outside secret\n'
const SHARED = 'shared\n'
const outcomes: { name: string; result: string }[] = []

async function attempt(escape: Escape): Promise<void> {
  const stack = await rootedStack()
  try {
    const env = { dir: stack.dir, outside: stack.outside }
    await writeFile(join(stack.outside, 'secret.txt'), SECRET)
    await writeFile(join(stack.outside, 'shared.txt'), SHARED)
    await escape.setup?.(env)
    const before = await snapshotTree(stack.outside)
    // An old access time (set after the snapshot, which reads the file): with relatime the first
    // read moves it, so any read of its bytes, not just one that reaches a tool result, shows.
    await utimes(join(stack.outside, 'secret.txt'), 1_000, new Date())
    const atimeBefore = (await stat(join(stack.outside, 'secret.txt'))).atimeMs
    // Any entry created, changed or removed outside, even for an instant (a staging file), is an event.
    const events: string[] = []
    const watcher = watch(stack.outside, (type, name) => events.push(`${type} ${String(name)}`))
    const texts: string[] = []
    // One session for the whole attempt, so that its prepare read counts for the write after it.
    const session = { cwd: stack.dir }
    const call = async (step: { name: string; arguments: unknown; cwd?: string }) => {
      const result = await stack.call(step.name, step.arguments, step.cwd === undefined ? session : { cwd: step.cwd })
      texts.push(textOf(result))
      return result
    }
    for (const step of escape.prepare ?? []) expect((await call(step)).isError, 'prepare').toBe(false)
    await escape.between?.(env)
    const result = await call(escape.attempt(env))
    await new Promise((resolve) => setTimeout(resolve, 50))
    watcher.close()

    expect((await stat(join(stack.outside, 'secret.txt'))).atimeMs, 'the outside file was never read').toBe(atimeBefore)
    expect(treeDiff(before, await snapshotTree(stack.outside)), 'no byte outside changed').toEqual([])
    // Replacing the inside name of a hard link changes the shared inode's link count (an attribute
    // event on the outside name) but never its bytes, which the snapshot above checks.
    const relevant = escape.allowed ? events.filter((event) => event !== 'change shared.txt') : events
    expect(relevant, 'nothing appeared outside, even briefly').toEqual([])
    expect(texts.join('\n')).not.toContain('outside secret')
    if (escape.allowed) {
      expect(result.isError, textOf(result)).toBe(false)
    } else {
      expect(result.isError, textOf(result)).toBe(true)
      expect(TYPED_CODES.has(result.error?.code ?? ''), JSON.stringify(result.error)).toBe(true)
    }
    if (escape.name.includes('hard link')) {
      expect(await readFile(join(stack.outside, 'shared.txt'), 'utf8')).toBe(SHARED)
    }
    outcomes.push({ name: escape.name, result: result.isError ? result.error!.code! : 'succeeded inside the root' })
  } finally {
    await stack.dispose()
  }
}

describe('escape attempts through the tools with `root` set', () => {
  for (const escape of ESCAPES) {
    it(escape.allowed ? `touches nothing outside with ${escape.name}` : `refuses ${escape.name}`, () => attempt(escape))
  }
})

afterAll(async () => {
  if (outcomes.length !== ESCAPES.length) return
  await recordSection({
    id: '5-containment-tools',
    title: 'Containment: escape attempts through the tools',
    method: 'Each attempt runs on a fresh LocalFileSystem with `root` set, through `ctx.tools.execute` with the policy. Outside '
      + 'the root, the bytes are snapshotted, an inotify watch records any entry that appears even briefly, and the secret '
      + 'file\'s access time (set in the past, relatime) shows whether its bytes were read at all.',
    facts: [
      ['escape attempts', outcomes.length],
      ['refused with a typed error', outcomes.filter((outcome) => outcome.result.startsWith('FS_')).length],
      ['succeeded as names inside the root (hard links)', outcomes.filter((outcome) => !outcome.result.startsWith('FS_')).length],
      ['bytes written outside the root', 0],
      ['bytes read outside the root (access time unchanged)', 0],
    ],
    table: [['attempt', 'outcome'], ...outcomes.map((outcome) => [outcome.name, outcome.result])],
  })
})
