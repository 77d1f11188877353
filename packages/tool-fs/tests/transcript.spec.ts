import { rm, writeFile } from 'node:fs/promises'
import { afterEach, expect, it } from 'vitest'
import { type Stack, stack, transcriptOf } from './harness'

let s: Stack
afterEach(async () => {
  await s.dispose()
})

/**
 * What the model sees in the main flows, pinned in a checked-in file: any change of wording, of a
 * remedy or of a line number shows up as a diff of `__transcripts__/main-flows.txt`.
 */
it('pins what the model sees in the main flows', async () => {
  s = await stack({ policy: true, config: { readMaxLineLength: 40 } })
  const { lines, outside, call } = transcriptOf(s)

  lines.push('=== read before edit, and a stale edit after a formatter ran', '')
  await outside('notes.md is created', () => writeFile(s.path('notes.md'), '# Notes\n\n- buy milk\n- call Bob\n'))
  await call('edit', { file_path: 'notes.md', old_string: 'milk', new_string: 'oat milk' })
  await call('write', { file_path: 'notes.md', content: '# Notes\n' })
  await call('read', { file_path: 'notes.md' })
  await call('edit', { file_path: 'notes.md', old_string: 'milk', new_string: 'oat milk' })
  await outside('a formatter rewrites notes.md', () => writeFile(s.path('notes.md'), '# Notes\n\n* buy oat milk\n* call Bob\n'))
  await call('edit', { file_path: 'notes.md', old_string: '- call Bob', new_string: '- call Alice' })
  await call('read', { file_path: 'notes.md', offset: 3 })
  await call('edit', { file_path: 'notes.md', old_string: '* call Bob', new_string: '* call Alice' })
  await call('write', { file_path: 'notes.md', content: '# Notes\n\n* buy oat milk\n* call Alice\n* water plants\n' })

  lines.push('=== a deleted file is recovered by a guarded create', '')
  await outside('notes.md is deleted', () => rm(s.path('notes.md')))
  await call('write', { file_path: 'notes.md', content: '# Notes\n' })
  await call('read', { file_path: 'notes.md' })
  await call('edit', { file_path: 'notes.md', old_string: '# Notes', new_string: '# Todo' })
  await call('write', { file_path: 'notes.md', content: '# Notes\n\n- water plants\n' })

  lines.push('=== a competitor that creates the file first wins', '')
  await outside('notes.md is deleted', () => rm(s.path('notes.md')))
  await call('read', { file_path: 'notes.md' })
  await outside('another process creates notes.md', () => writeFile(s.path('notes.md'), 'theirs\n'))
  await call('write', { file_path: 'notes.md', content: 'mine\n' })

  lines.push('=== windows over a long file', '')
  await outside('log.txt is created', () => writeFile(s.path('log.txt'), `${Array.from({ length: 5 }, (_, i) => `entry ${i + 1}`).join('\n')}\n${'x'.repeat(60)}\n`))
  await call('read', { file_path: 'log.txt', limit: 2 })
  await call('read', { file_path: 'log.txt', offset: 5 })
  await call('read', { file_path: 'log.txt', offset: 9 })

  lines.push('=== mistakes the model makes', '')
  await call('read', { file_path: 'log.txt' })
  await call('edit', { file_path: 'log.txt', old_string: 'entry', new_string: 'item' })
  await call('edit', { file_path: 'log.txt', old_string: '     1\tentry 1', new_string: 'item 1' })
  await call('edit', { file_path: 'log.txt', old_string: 'entry', new_string: 'item', replaceAll: true })
  await call('edit', { file_path: 'log.txt', old_string: 'entry', new_string: 'item', replace_all: 'yes' })
  await call('edit', { file_path: 'log.txt', old_string: 'entry', new_string: 'item', replace_all: true })
  await call('reed', { file_path: 'log.txt' })
  // The editor family's name for the path, from a client (Gemini CLI) that adds wait_for_previous to every call.
  await call('read', { path: 'log.txt', limit: 1, wait_for_previous: true })
  await call('read', { file_path: 'log.txt', limit: 1, wait_for_previous: true })
  // Habits from other harnesses: another tool's name, a shell's path, another system's separator.
  await call('edit_file', { path: 'log.txt', old_str: 'entry', new_str: 'item' })
  await call('read', { file_path: '~/log.txt', offset: -2 })
  await call('write', { file_path: 'src\\new.js', content: 'x\n' })

  const transcript = lines.join('\n').replaceAll(s.dir, '<tmp>')
  await expect(transcript).toMatchFileSnapshot('./__transcripts__/main-flows.txt')
})
