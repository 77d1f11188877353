import { execFileSync } from 'node:child_process'
import { mkdir, rm, symlink } from 'node:fs/promises'
import { expect, it } from 'vitest'
import { editorFixture, type EditorFixture, textOf } from './fixture'

/**
 * The situations of dsh-tool-fs's `situations.spec.ts`, in this family: a fresh workspace each
 * (policy, root, `staleRefusalObserves: true`), each call the one the previous text names. A
 * situation marked `recovers` ends in success within exactly its calls. Pinned in `situations.txt`.
 */
type Step = Record<string, unknown> | { outside: string; act: (f: EditorFixture) => Promise<void> }
interface Situation {
  name: string
  setup?: (f: EditorFixture) => Promise<void>
  steps: Step[]
  recovers: boolean
}

const SITUATIONS: Situation[] = [
  { name: 'str_replace and insert on a directory', setup: async (f) => { await mkdir(f.at('src')); await f.put('src/app.py', 'x = 1\n') },
    steps: [{ command: 'str_replace', path: 'src', old_str: 'x', new_str: 'y' }, { command: 'insert', path: 'src', insert_line: 0, new_str: 'y' },
      { command: 'view', path: 'src' }, { command: 'view', path: 'src/app.py' }, { command: 'str_replace', path: 'src/app.py', old_str: 'x = 1', new_str: 'x = 2' }],
    recovers: true },
  { name: 'create at the workspace root', steps: [{ command: 'create', path: '.', file_text: 'x\n' }, { command: 'create', path: './notes.txt', file_text: 'x\n' }], recovers: true },
  { name: 'str_replace in a binary file', setup: (f) => f.put('logo.png', Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0, 0, 1)),
    steps: [{ command: 'str_replace', path: 'logo.png', old_str: 'PNG', new_str: 'GIF' }, { command: 'view', path: 'logo.png' }], recovers: false },
  { name: 'view and str_replace of a FIFO', setup: async (f) => { execFileSync('mkfifo', [f.at('pipe')]) },
    steps: [{ command: 'view', path: 'pipe' }, { command: 'str_replace', path: 'pipe', old_str: 'a', new_str: 'b' }], recovers: false },
  { name: 'a broken symbolic link', setup: (f) => symlink('gone.txt', f.at('link.txt')),
    steps: [{ command: 'view', path: 'link.txt' }, { command: 'str_replace', path: 'link.txt', old_str: 'a', new_str: 'b' }, { command: 'create', path: 'link.txt', file_text: 'a\n' }],
    recovers: false },
  { name: 'str_replace in a file that does not exist yet',
    steps: [{ command: 'str_replace', path: 'new.py', old_str: 'a', new_str: 'b' }, { command: 'create', path: 'new.py', file_text: 'b\n' }], recovers: true },
  { name: 'str_replace after a formatter changed the file', setup: (f) => f.put('a.py', 'def f():\n  return 1\n'),
    steps: [{ command: 'view', path: 'a.py' }, { outside: 'a formatter re-indents a.py', act: (f) => f.put('a.py', 'def f():\n    return 1\n') },
      { command: 'str_replace', path: 'a.py', old_str: 'def f():\n  return 1', new_str: 'def f():\n  return 2' },
      { command: 'str_replace', path: 'a.py', old_str: 'def f():\n    return 1', new_str: 'def f():\n    return 2' }], recovers: true },
  { name: 'insert after another process changed the file', setup: (f) => f.put('a.txt', 'one\n'),
    steps: [{ command: 'view', path: 'a.txt' }, { outside: 'another process appends to a.txt', act: (f) => f.put('a.txt', 'one\ntwo\n') },
      { command: 'insert', path: 'a.txt', insert_line: 1, new_str: 'three' }, { command: 'insert', path: 'a.txt', insert_line: 2, new_str: 'three' }], recovers: true },
  { name: 'str_replace after the file was deleted', setup: (f) => f.put('a.txt', 'one\n'),
    steps: [{ command: 'view', path: 'a.txt' }, { outside: 'a.txt is deleted', act: (f) => rm(f.at('a.txt')) },
      { command: 'str_replace', path: 'a.txt', old_str: 'one', new_str: 'uno' }, { command: 'create', path: 'a.txt', file_text: 'uno\n' }], recovers: true },
  { name: 'old_str with the wrong indentation', setup: (f) => f.put('a.py', 'def f():\n    if x:\n        return 1\n'),
    steps: [{ command: 'view', path: 'a.py' }, { command: 'str_replace', path: 'a.py', old_str: '  if x:\n    return 1', new_str: '  if y:\n    return 1' },
      { command: 'str_replace', path: 'a.py', old_str: '    if x:\n        return 1', new_str: '    if y:\n        return 1' }], recovers: true },
  { name: 'old_str with other quotes', setup: (f) => f.put('a.js', "const a = 'x'\n"),
    steps: [{ command: 'view', path: 'a.js' }, { command: 'str_replace', path: 'a.js', old_str: 'const a = "x"', new_str: 'const a = "y"' },
      { command: 'str_replace', path: 'a.js', old_str: "const a = 'x'", new_str: "const a = 'y'" }], recovers: true },
  { name: 'old_str equal to new_str', setup: (f) => f.put('a.txt', 'same\n'),
    steps: [{ command: 'view', path: 'a.txt' }, { command: 'str_replace', path: 'a.txt', old_str: 'same', new_str: 'same' }, { command: 'undo_edit', path: 'a.txt' }],
    recovers: false },
  { name: 'two matches on one line', setup: (f) => f.put('a.txt', 'x = x + 1\n'),
    steps: [{ command: 'view', path: 'a.txt' }, { command: 'str_replace', path: 'a.txt', old_str: 'x', new_str: 'y' },
      { command: 'str_replace', path: 'a.txt', old_str: 'x = x', new_str: 'y = x' }], recovers: true },
  { name: 'a view_range that ends at the last line', setup: (f) => f.put('a.txt', 'a\nb\nc\n'),
    steps: [{ command: 'view', path: 'a.txt', view_range: [2, 4] }, { command: 'view', path: 'a.txt', view_range: [2, 3] }], recovers: true },
]

it('pins what the model sees in each situation, and the calls it takes to recover', async () => {
  const out: string[] = []
  for (const situation of SITUATIONS) {
    const f = await editorFixture({ rooted: true, config: { staleRefusalObserves: true } })
    try {
      await situation.setup?.(f)
      out.push(`# ${situation.name}`)
      let last: boolean | undefined
      for (const step of situation.steps) {
        if ('outside' in step && typeof step.act === 'function') {
          out.push(`# outside the session: ${String(step.outside)}`)
          await step.act(f)
          continue
        }
        const result = await f.call(step as Record<string, unknown>)
        last = !result.isError
        out.push(`> ${JSON.stringify(step)}`, `< ${result.isError ? `error ${result.error?.code}` : 'ok'}`, textOf(result).replaceAll(f.dir, '/work'), '')
      }
      expect(last, situation.name).toBe(situation.recovers)
    } finally {
      await f.dispose()
    }
  }
  await expect(out.join('\n')).toMatchFileSnapshot('./situations.txt')
})
