import { mkdir, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { type Stack, stack } from './harness'

let s: Stack
afterEach(async () => {
  await s.dispose()
})

/** What the model sees from glob, grep, list and multi_edit, pinned like the main flows. */
it('pins what the model sees when it finds files and edits several places at once', async () => {
  s = await stack({ policy: true, config: { globLimit: 2 } })
  const files: Record<string, string> = {
    '.gitignore': 'dist/\n',
    'dist/app.js': 'built\n',
    'src/app.ts': 'import { greet } from "./greet"\n\nconsole.log(greet("world"))\n',
    'src/greet.ts': 'export function greet(name: string) {\n  return `hello ${name}`\n}\n',
    'src/util/strings.ts': 'export const upper = (s: string) => s.toUpperCase()\n',
  }
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(s.path(name)), { recursive: true })
    await writeFile(s.path(name), text)
  }
  const lines: string[] = []
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await s.call(name, args)
    const status = result.isError ? `error ${result.error?.code ?? ''}`.trim() : 'ok'
    lines.push(`>>> ${name} ${JSON.stringify(args)}`, `<<< ${status}`, result.content.map((part) => part.text).join(''), '')
  }
  await call('list', {})
  await call('glob', { pattern: '**/*.ts' })
  await call('glob', { pattern: '**/*.ts', offset: 2 })
  await call('grep', { pattern: 'greet\\(', output_mode: 'content', context: 1 })
  await call('grep', { pattern: 'greet(' })
  await call('multi_edit', { file_path: 'src/greet.ts', edits: [{ old_string: 'greet', new_string: 'welcome' }] })
  await call('read', { file_path: 'src/greet.ts' })
  await call('multi_edit', { file_path: 'src/greet.ts', edits: [
    { old_string: 'function greet', new_string: 'function welcome' },
    { old_string: 'hello', new_string: 'welcome' },
    { old_string: 'goodbye', new_string: 'bye' },
  ] })
  await call('multi_edit', { file_path: 'src/greet.ts', edits: [
    { old_string: 'function greet', new_string: 'function welcome' },
    { old_string: 'hello', new_string: 'welcome' },
  ] })
  const transcript = lines.join('\n').replaceAll(s.dir, '<tmp>')
  await expect(transcript).toMatchFileSnapshot('./__transcripts__/discovery-flows.txt')
})
