import { execFileSync } from 'node:child_process'
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises'
import { expect, it } from 'vitest'
import { stack, type Stack } from './harness'

/**
 * One situation per block, each on a fresh workspace with the shipped settings (policy, root,
 * `staleRefusalObserves: true`), each call the one the previous result text names. A situation
 * marked `recovers` must end in success within exactly its calls: the text led straight there.
 * The whole transcript is pinned in `__transcripts__/situations.txt`.
 */
interface Situation {
  name: string
  setup?: (s: Stack) => Promise<void>
  steps: (Call | Outside)[]
  recovers: boolean
}
type Call = [tool: string, args: Record<string, unknown>]
type Outside = { outside: string; act: (s: Stack) => Promise<void> }

const lines = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}`).join('\n') + '\n'

const SITUATIONS: Situation[] = [
  { name: 'edit of a directory', setup: async (s) => { await mkdir(s.path('src')); await s.put('src/app.py', 'x = 1\n') },
    steps: [['edit', { file_path: 'src', old_string: 'x', new_string: 'y' }], ['read', { file_path: 'src' }], ['read', { file_path: 'src/app.py' }],
      ['edit', { file_path: 'src/app.py', old_string: 'x = 1', new_string: 'x = 2' }]], recovers: true },
  { name: 'write to the workspace root', steps: [['write', { file_path: '.', content: 'x\n' }], ['write', { file_path: './notes.txt', content: 'x\n' }]], recovers: true },
  { name: 'edit of a binary file', setup: (s) => s.put('logo.png', Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0, 0, 1)),
    steps: [['edit', { file_path: 'logo.png', old_string: 'PNG', new_string: 'GIF' }]], recovers: false },
  { name: 'write over a file that is not UTF-8', setup: (s) => s.put('latin1.txt', Uint8Array.of(0x63, 0x61, 0x66, 0xe9, 0x0a)),
    steps: [['write', { file_path: 'latin1.txt', content: 'café\n' }]], recovers: false },
  { name: 'read and edit of a FIFO', setup: async (s) => { execFileSync('mkfifo', [s.path('pipe')]) },
    steps: [['read', { file_path: 'pipe' }], ['edit', { file_path: 'pipe', old_string: 'a', new_string: 'b' }]], recovers: false },
  { name: 'a broken symbolic link', setup: (s) => symlink('gone.txt', s.path('link.txt')),
    steps: [['read', { file_path: 'link.txt' }], ['edit', { file_path: 'link.txt', old_string: 'a', new_string: 'b' }], ['write', { file_path: 'link.txt', content: 'a\n' }]],
    recovers: false },
  { name: 'edit of a file that does not exist yet', steps: [['edit', { file_path: 'new.txt', old_string: 'a', new_string: 'b' }], ['write', { file_path: 'new.txt', content: 'b\n' }]],
    recovers: true },
  { name: 'edit after a formatter changed the file', setup: (s) => s.put('a.py', 'def f():\n  return 1\n'),
    steps: [['read', { file_path: 'a.py' }], { outside: 'a formatter re-indents a.py', act: (s) => s.put('a.py', 'def f():\n    return 1\n') },
      ['edit', { file_path: 'a.py', old_string: '  return 1', new_string: '  return 2' }], ['edit', { file_path: 'a.py', old_string: '    return 1', new_string: '    return 2' }]],
    recovers: true },
  { name: 'write after another process changed the file', setup: (s) => s.put('a.txt', 'one\n'),
    steps: [['read', { file_path: 'a.txt' }], { outside: 'another process appends to a.txt', act: (s) => s.put('a.txt', 'one\ntwo\n') },
      ['write', { file_path: 'a.txt', content: 'one\ntwo\nthree\n' }], ['write', { file_path: 'a.txt', content: 'one\ntwo\nthree\n' }]], recovers: true },
  { name: 'edit after the file was deleted', setup: (s) => s.put('a.txt', 'one\n'),
    steps: [['read', { file_path: 'a.txt' }], { outside: 'a.txt is deleted', act: (s) => rm(s.path('a.txt')) },
      ['edit', { file_path: 'a.txt', old_string: 'one', new_string: 'uno' }], ['write', { file_path: 'a.txt', content: 'uno\n' }]], recovers: true },
  { name: 'old_string with the wrong indentation', setup: (s) => s.put('a.py', 'def f():\n    if x:\n        return 1\n'),
    steps: [['read', { file_path: 'a.py' }], ['edit', { file_path: 'a.py', old_string: '  if x:\n    return 1', new_string: '  if y:\n    return 1' }],
      ['edit', { file_path: 'a.py', old_string: '    if x:\n        return 1', new_string: '    if y:\n        return 1' }]], recovers: true },
  { name: 'old_string with tabs for spaces', setup: (s) => s.put('a.go', 'func f() {\n\treturn 1\n}\n'),
    steps: [['read', { file_path: 'a.go' }], ['edit', { file_path: 'a.go', old_string: 'func f() {\n    return 1\n}', new_string: 'func f() {\n    return 2\n}' }],
      ['edit', { file_path: 'a.go', old_string: 'func f() {\n\treturn 1\n}', new_string: 'func f() {\n\treturn 2\n}' }]], recovers: true },
  { name: 'old_string with other quotes', setup: (s) => s.put('a.js', "const a = 'x'\n"),
    steps: [['read', { file_path: 'a.js' }], ['edit', { file_path: 'a.js', old_string: 'const a = "x"', new_string: 'const a = "y"' }],
      ['edit', { file_path: 'a.js', old_string: "const a = 'x'", new_string: "const a = 'y'" }]], recovers: true },
  { name: 'old_string with trailing whitespace', setup: (s) => s.put('a.txt', 'alpha\nbeta\n'),
    steps: [['read', { file_path: 'a.txt' }], ['edit', { file_path: 'a.txt', old_string: 'alpha \nbeta', new_string: 'ALPHA\nbeta' }],
      ['edit', { file_path: 'a.txt', old_string: 'alpha\nbeta', new_string: 'ALPHA\nbeta' }]], recovers: true },
  { name: 'two matches on one line', setup: (s) => s.put('a.txt', 'x = x + 1\n'),
    steps: [['read', { file_path: 'a.txt' }], ['edit', { file_path: 'a.txt', old_string: 'x', new_string: 'y' }],
      ['edit', { file_path: 'a.txt', old_string: 'x = x', new_string: 'y = x' }]], recovers: true },
  { name: 'multi_edit with the wrong indentation in its second edit', setup: (s) => s.put('a.py', 'def f():\n    if x:\n        return 1\n'),
    steps: [['read', { file_path: 'a.py' }],
      ['multi_edit', { file_path: 'a.py', edits: [{ old_string: 'def f():', new_string: 'def g():' }, { old_string: '  if x:\n    return 1', new_string: '  if y:\n    return 1' }] }],
      ['multi_edit', { file_path: 'a.py', edits: [{ old_string: 'def f():', new_string: 'def g():' }, { old_string: '    if x:\n        return 1', new_string: '    if y:\n        return 1' }] }]],
    recovers: true },
  { name: 'a line longer than the line cap', setup: (s) => s.put('min.js', `${'ab'.repeat(30)}\n`),
    steps: [['read', { file_path: 'min.js' }], ['read', { file_path: 'min.js', offset: 1, limit: 1, column: 41 }]], recovers: true },
  { name: 'windows to the end of a file', setup: (s) => s.put('a.txt', lines(5)),
    steps: [['read', { file_path: 'a.txt', limit: 3 }], ['read', { file_path: 'a.txt', offset: 4 }]], recovers: true },
]

it('pins what the model sees in each situation, and the calls it takes to recover', async () => {
  const out: string[] = []
  for (const situation of SITUATIONS) {
    const s = await stack({ policy: true, rooted: true, config: { readMaxLineLength: 40, staleRefusalObserves: true } })
    try {
      await situation.setup?.(s)
      out.push(`=== ${situation.name}`, '')
      let last: boolean | undefined
      for (const step of situation.steps) {
        if ('outside' in step) {
          out.push(`--- outside the agent: ${step.outside}`, '')
          await step.act(s)
          continue
        }
        const [tool, args] = step
        const result = await s.call(tool, args)
        last = !result.isError
        out.push(`>>> ${tool} ${JSON.stringify(args)}`, `<<< ${result.isError ? `error ${result.error?.code}` : 'ok'}`,
          result.content.map((part) => part.text).join(''), '')
      }
      expect(last, situation.name).toBe(situation.recovers)
    } finally {
      await s.dispose()
    }
  }
  await expect(out.join('\n').replace(/\/tmp\/dsh-stack-\w+\/work/g, '<tmp>')).toMatchFileSnapshot('./__transcripts__/situations.txt')
})

it('never emits an observation from a stale refusal when the option is off (the seed chain)', async () => {
  const s = await stack({ policy: true })
  try {
    await s.put('a.txt', 'one\n')
    await s.call('read', { file_path: 'a.txt' })
    await writeFile(s.path('a.txt'), 'two\n')
    const stale = await s.call('edit', { file_path: 'a.txt', old_string: 'two', new_string: '2' })
    expect(stale.error?.code).toBe('FS_STALE_VERSION')
    expect(stale.content[0]!.text).toMatch(/; re-read the file, then retry$/)
    // Still stale: nothing was recorded, so the re-read stays necessary.
    expect((await s.call('edit', { file_path: 'a.txt', old_string: 'two', new_string: '2' })).error?.code).toBe('FS_STALE_VERSION')
    expect((await s.bytes('a.txt'))?.toString()).toBe('two\n')
  } finally {
    await s.dispose()
  }
})
