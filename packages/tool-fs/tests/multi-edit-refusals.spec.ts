import { mkdir } from 'node:fs/promises'
import { expect, it } from 'vitest'
import { stack } from './harness'

it('refuses multi_edit on a directory by naming it, not by sending the model to read it first', async () => {
  const s = await stack({ policy: true, rooted: true })
  try {
    await mkdir(s.path('src'))
    const result = await s.call('multi_edit', { file_path: 'src', edits: [{ old_string: 'a', new_string: 'b' }] })
    expect(result.error?.code).toBe('FS_NOT_REGULAR_FILE')
    expect(result.content[0]!.text).toMatch(/is a directory, not a file; pass the path of a file in it/)
  } finally {
    await s.dispose()
  }
})

it('shows a failed step its closest text as it reads after the earlier steps, and writes nothing', async () => {
  const s = await stack({ policy: true, rooted: true })
  try {
    await s.put('a.py', 'a = 1\nb = 2\n')
    await s.call('read', { file_path: 'a.py' })
    // edits[0] turns line 1 into two lines, so b = 2 is line 3 of the text edits[1] met (line 2 on disk).
    const result = await s.call('multi_edit', { file_path: 'a.py', edits: [
      { old_string: 'a = 1', new_string: 'a = 1\nc = 3' },
      { old_string: 'b = 2 ', new_string: 'b = 20' },
    ] })
    expect(result.error?.code).toBe('FS_EDIT_NOT_FOUND')
    const text = result.content[0]!.text
    expect(text).toMatch(/^edits\[1\]: old_string was not found in .*a\.py \(after edits\[0\.\.0\] were applied to the text\)/)
    expect(text).toContain('The closest text is line 3 of that text:\n     3\tb = 2')
    expect((await s.bytes('a.py'))?.toString()).toBe('a = 1\nb = 2\n')
  } finally {
    await s.dispose()
  }
})
