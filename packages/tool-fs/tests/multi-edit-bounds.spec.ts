import { FS_MAX_EDITS } from '@deepseek-ai/dsh-fs/kit'
import { expect, it } from 'vitest'
import { stack } from './harness'

it(`refuses more than ${FS_MAX_EDITS} edits in one multi_edit, saying the cap and how to send them, and writes nothing`, async () => {
  const s = await stack({ policy: true, rooted: true })
  try {
    const text = Array.from({ length: FS_MAX_EDITS + 1 }, (_, i) => `<${i}>\n`).join('')
    await s.put('many.txt', text)
    await s.call('read', { file_path: 'many.txt' })
    const edits = Array.from({ length: FS_MAX_EDITS + 1 }, (_, i) => ({ old_string: `<${i}>`, new_string: `[${i}]` }))
    const result = await s.call('multi_edit', { file_path: 'many.txt', edits })
    expect(result.error?.code).toBe('FS_TOO_LARGE')
    expect(result.content[0]!.text).toContain(`cannot take ${FS_MAX_EDITS + 1} edits in one call: the limit is ${FS_MAX_EDITS}; nothing was changed. `
      + `Send the edits in calls of at most ${FS_MAX_EDITS}, in order (each call applies to what the one before wrote)`)
    expect((await s.bytes('many.txt'))?.toString()).toBe(text)
    // Split as the text says, they all go through.
    expect((await s.call('multi_edit', { file_path: 'many.txt', edits: edits.slice(0, FS_MAX_EDITS) })).isError).toBe(false)
    expect((await s.call('multi_edit', { file_path: 'many.txt', edits: edits.slice(FS_MAX_EDITS) })).isError).toBe(false)
    expect((await s.bytes('many.txt'))?.toString()).toBe(text.replaceAll('<', '[').replaceAll('>', ']'))
  } finally {
    await s.dispose()
  }
})

it('refuses a doubling multi_edit of under 2 KB (like the 953-byte one that once wrote 500 MB) before building past its bounds, and writes nothing', async () => {
  const s = await stack({ policy: true, rooted: true })
  try {
    await s.put('grow.txt', 'a'.repeat(1000))
    await s.call('read', { file_path: 'grow.txt' })
    const edits = Array.from({ length: 30 }, () => ({ old_string: 'a', new_string: 'aa', replace_all: true }))
    expect(Buffer.byteLength(JSON.stringify({ file_path: 'grow.txt', edits }))).toBeLessThan(2000)
    const result = await s.call('multi_edit', { file_path: 'grow.txt', edits })
    expect(result.error?.code).toBe('FS_TOO_LARGE')
    // edits[0..8] replace 511,000 times; edits[9] would pass the 1,000,000 one call may make, at a 512 KB text.
    expect(result.content[0]!.text).toContain('edits[9]: ')
    expect(result.content[0]!.text).toContain('has more than 489,000 occurrences of old_string to replace')
    expect((await s.bytes('grow.txt'))?.toString()).toBe('a'.repeat(1000))
  } finally {
    await s.dispose()
  }
})
