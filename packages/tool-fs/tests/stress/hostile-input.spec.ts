import type { ToolResult } from '@deepseek-ai/dsh-tools'
import { execFile } from 'node:child_process'
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bundleEntry } from '../../../../scripts/reliability/bundle'
import { recordSection } from '../../../../scripts/reliability/record'
import { snapshotTree, treeDiff } from '../../../../scripts/reliability/tree'
import { type CaseEnv, HOSTILE_CASES, type HostileCase } from './hostile-corpus'
import { rootedStack, textOf, TYPED_CODES } from './stack'

const run = promisify(execFile)
const DEADLINE_MS = 5_000
const canDrop = process.getuid?.() === 0
let child: string
let childDir: string

interface Outcome {
  name: string
  group: string
  result: string
  ms: number
}
const outcomes: Outcome[] = []

beforeAll(async () => {
  childDir = await mkdtemp(join(tmpdir(), 'dsh-reliability-child-'))
  await chmod(childDir, 0o755)
  child = await bundleEntry(join(import.meta.dirname, 'children', 'tool-calls.ts'), childDir)
}, 60_000)

type Timed = ToolResult & { elapsedMs: number }

async function runCase(hostile: HostileCase): Promise<void> {
  const stack = await rootedStack()
  try {
    const env: CaseEnv = { dir: stack.dir, outside: stack.outside, at: (name) => join(stack.dir, name) }
    await writeFile(join(stack.outside, 'secret.txt'), 'outside secret\n')
    await hostile.setup?.(env)
    const call = typeof hostile.call === 'function' ? hostile.call(env) : hostile.call
    let result: Timed
    let before: Map<string, string>
    if (hostile.asNobody) {
      before = await snapshotTree(stack.dir)
      const calls = [...(hostile.prepare ?? []), call]
      const { stdout } = await run('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, child, stack.dir, JSON.stringify(calls)])
      const results = JSON.parse(stdout) as Timed[]
      result = results.at(-1)!
    } else {
      for (const step of hostile.prepare ?? []) await stack.call(step.name, step.arguments)
      before = await snapshotTree(stack.dir)
      const started = performance.now()
      const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${DEADLINE_MS} ms`)), DEADLINE_MS).unref())
      result = { ...(await Promise.race([stack.call(call.name, call.arguments), timeout])), elapsedMs: 0 }
      result.elapsedMs = performance.now() - started
    }
    const outsideBefore = new Map([['secret.txt', `file 644 ${Buffer.from('outside secret\n').toString('base64')}`]])
    expect(treeDiff(outsideBefore, await snapshotTree(stack.outside)), 'nothing outside the root changed').toEqual([])
    expect(result.elapsedMs, 'answered within the deadline').toBeLessThan(DEADLINE_MS)
    expect(textOf(result), 'the result never carries bytes from outside the root').not.toContain('outside secret')
    if (result.isError) {
      expect(TYPED_CODES.has(result.error?.code ?? ''), `a typed error, got ${JSON.stringify(result.error)}`).toBe(true)
      expect(treeDiff(before, await snapshotTree(stack.dir)), 'a failed call changes no file').toEqual([])
    }
    const expected = hostile.code === undefined ? undefined : [hostile.code].flat()
    if (expected !== undefined) {
      expect(result.error?.code, textOf(result)).toBeOneOf(expected)
    } else {
      expect(result.isError, textOf(result)).toBe(false)
      if (call.name === 'read') expect(treeDiff(before, await snapshotTree(stack.dir)), 'a read changes no file').toEqual([])
      await hostile.ok!(textOf(result), env)
    }
    outcomes.push({ name: hostile.name, group: hostile.group, result: result.isError ? result.error!.code! : 'correct result', ms: result.elapsedMs })
  } finally {
    await stack.dispose()
  }
}

describe('hostile input through the tools', () => {
  for (const hostile of HOSTILE_CASES) {
    it.skipIf(hostile.asNobody && !canDrop)(hostile.name, () => runCase(hostile), 60_000)
  }
})

afterAll(async () => {
  await rm(childDir, { recursive: true, force: true })
  if (outcomes.length !== HOSTILE_CASES.length) return
  const count = (group: string) => outcomes.filter((outcome) => outcome.group === group).length
  await recordSection({
    id: '3-hostile-input',
    title: 'Hostile input corpus (through the tools)',
    method: 'Each case runs on a fresh LocalFileSystem with `root` set, with the tools and the policy, through `ctx.tools.execute`. '
      + `It must answer within ${DEADLINE_MS / 1000} s with its expected typed code or a result whose text and bytes are checked; the byte `
      + 'snapshot of the root must be unchanged after a failure or a read, and the directory beside the root unchanged always. '
      + 'Permission cases run in a child process as uid 65534.',
    facts: [
      ['cases', outcomes.length],
      ['path cases', count('path')],
      ['content cases', count('content')],
      ['argument cases', count('argument')],
      ['typed errors', outcomes.filter((outcome) => outcome.result !== 'correct result').length],
      ['correct results', outcomes.filter((outcome) => outcome.result === 'correct result').length],
      ['crashes, hangs, untyped errors, changed files after a failure', 0],
      ['slowest answer (ms)', Math.round(Math.max(...outcomes.map((outcome) => outcome.ms)))],
    ],
    table: [['case', 'outcome', 'ms'], ...outcomes.map((outcome) => [outcome.name, outcome.result, String(Math.round(outcome.ms))])],
  })
})
