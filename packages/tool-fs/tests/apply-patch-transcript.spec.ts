import { mkdir, writeFile } from 'node:fs/promises'
import { afterEach, expect, it } from 'vitest'
import { type Stack, stack, transcriptOf } from './harness'

let s: Stack
afterEach(async () => {
  await s.dispose()
})

const patch = (...lines: string[]) => ['*** Begin Patch', ...lines, '*** End Patch'].join('\n')

/**
 * What the model sees from `apply_patch`, pinned in `__transcripts__/patch-flows.txt` (docs/tools.md
 * quotes it): a patch over several files, the refusals that write nothing, and the report of a
 * publication stopped partway.
 */
it('pins what the model sees from apply_patch', async () => {
  s = await stack({ policy: true, config: { applyPatch: true } })
  const { lines, outside, call } = transcriptOf(s)

  lines.push('=== one patch over four files', '')
  await outside('src/app.py, src/util.py and src/old.py are created', async () => {
    await mkdir(s.path('src'))
    await writeFile(s.path('src/app.py'), 'import util\n\ndef main():\n    print(util.greet("world"))\n')
    await writeFile(s.path('src/util.py'), 'def greet(name):\n    return "hello " + name\n')
    await writeFile(s.path('src/old.py'), 'LEGACY = True\n')
  })
  await call('apply_patch', { input: patch('*** Update File: src/app.py', '@@ def main():', '-    print(util.greet("world"))', '+    print(util.greet("dsh"))') })
  for (const name of ['src/app.py', 'src/util.py', 'src/old.py']) await s.call('read', { file_path: name })
  lines.push('(the three files are read)', '')
  await call('apply_patch', { input: patch(
    '*** Update File: src/util.py',
    '@@ def greet(name):',
    '-    return "hello " + name',
    '+    return f"hello {name}"',
    '*** Add File: src/config.py',
    '+DEBUG = False',
    '*** Update File: src/app.py',
    '*** Move to: src/main.py',
    '@@',
    ' def main():',
    '-    print(util.greet("world"))',
    '+    print(util.greet("dsh"))',
    '*** Delete File: src/old.py',
  ) })

  lines.push('=== refusals that write nothing', '')
  await s.call('read', { file_path: 'src/main.py' })
  lines.push('(src/main.py is read)', '')
  await call('apply_patch', { input: patch('*** Add File: src/new.py', '+x = 1', '*** Update File: src/main.py', '@@', ' def main():', '-  print(util.greet("dsh"))', '+  print(util.greet("you"))') })
  await outside('src/twice.py is created and read', async () => {
    await writeFile(s.path('src/twice.py'), 'def a():\n    return 0\n\ndef b():\n    return 0\n')
    await s.call('read', { file_path: 'src/twice.py' })
  })
  await call('apply_patch', { input: patch('*** Update File: src/twice.py', '@@', '-    return 0', '+    return 1') })
  await call('apply_patch', { input: patch('*** Add File: src/config.py', '+DEBUG = True') })

  lines.push('=== a publication stopped partway', '')
  await outside('a file named blocker is created', () => writeFile(s.path('blocker'), 'a file where a directory is needed\n'))
  await call('apply_patch', { input: patch('*** Update File: src/twice.py', '@@ def b():', '-    return 0', '+    return 2', '*** Add File: blocker/new.py', '+y = 2', '*** Delete File: src/config.py') })

  const transcript = lines.join('\n').replaceAll(s.dir, '<tmp>')
  await expect(transcript).toMatchFileSnapshot('./__transcripts__/patch-flows.txt')
})
