import { rm, writeFile } from 'node:fs/promises'
import { afterEach, expect, it } from 'vitest'
import { editorFixture, type EditorFixture, textOf } from './fixture'

let f: EditorFixture
afterEach(() => f.dispose())

/**
 * What the model sees in the main flows, pinned in `transcript.txt`: any change of wording shows up
 * as a diff of that file. The temp directory is written as /work.
 */
it('pins the model-visible transcript of the main flows', async () => {
  f = await editorFixture()
  const lines: string[] = []
  const say = (note: string) => lines.push(`# ${note}`)
  const call = async (args: Record<string, unknown>) => {
    const result = await f.call(args)
    const status = result.isError ? `error ${result.error?.code ?? ''}`.trim() : 'ok'
    lines.push(`> ${JSON.stringify(args)}`, `< ${status}`, textOf(result).replaceAll(f.dir, '/work'), '')
  }

  await f.put('app.py', 'def main():\n    print("hello")\n    print("hello")\n\nmain()\n')
  say('a directory, then a file')
  await call({ command: 'view', path: '.' })
  await call({ command: 'str_replace', path: 'app.py', old_str: 'main', new_str: 'run' })
  await call({ command: 'view', path: 'app.py' })
  await call({ command: 'view', path: 'app.py', view_range: [2, 9] })
  say('edits')
  await call({ command: 'str_replace', path: 'app.py', old_str: '    print("hello")', new_str: '    print("hi")' })
  await call({ command: 'str_replace', path: 'app.py', old_str: 'print("bye")', new_str: 'x' })
  await call({ command: 'str_replace', path: 'app.py', old_str: 'def main():\n    print("hello")', new_str: 'def main():\n    print("hi")' })
  await call({ command: 'insert', path: 'app.py', insert_line: 1, new_str: '    """Entry point."""' })
  await call({ command: 'insert', path: 'app.py', insert_line: 99, new_str: 'x' })
  await call({ command: 'undo_edit', path: 'app.py' })
  say('create')
  await call({ command: 'create', path: 'app.py', file_text: 'clobber' })
  await call({ command: 'create', path: 'lib/util.py', file_text: 'X = 1\n' })
  say('someone else changes the file')
  await call({ command: 'str_replace', path: 'app.py', old_str: 'print("hi")', new_str: 'print("hey")' })
  await writeFile(f.at('app.py'), 'def main():\n    pass\n')
  await call({ command: 'undo_edit', path: 'app.py' })
  await call({ command: 'str_replace', path: 'app.py', old_str: 'pass', new_str: 'return 0' })
  say('the file is deleted behind the session')
  await call({ command: 'view', path: 'app.py' })
  await rm(f.at('app.py'))
  await call({ command: 'insert', path: 'app.py', insert_line: 0, new_str: '# header' })
  await call({ command: 'view', path: 'app.py' })
  await call({ command: 'str_replace', path: 'app.py', old_str: 'pass', new_str: 'return 0' })
  await call({ command: 'create', path: 'app.py', file_text: 'def main():\n    return 0\n' })
  say('argument mistakes')
  await call({ command: 'str_replace', path: 'app.py', old_string: 'a', new_str: 'b' })
  await call({ command: 'view', path: 'app.py', view_range: [1] })
  await call({ command: 'insert', path: 'app.py', new_str: 'x' })

  await expect(lines.join('\n')).toMatchFileSnapshot('./transcript.txt')
})
