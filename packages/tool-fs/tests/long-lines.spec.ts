import { afterEach, expect, it } from 'vitest'
import { type Stack, stack } from './harness'

let s: Stack
afterEach(async () => {
  await s.dispose()
})

it('shows a grep match deep in a long line with its column, and read reaches it in one call', async () => {
  s = await stack({ policy: true })
  await s.put('min.js', `${'a'.repeat(35_000)}NEEDLE${'b'.repeat(1_000)}\n`)
  const found = await s.text('grep', { pattern: 'NEEDLE', output_mode: 'content' })
  const path = s.path('min.js')
  expect(found).toContain(`     1\t${'a'.repeat(154)}NEEDLE`)
  expect(found).toContain(`[Line 1 of ${path} has 36006 characters; the match ends at column 35006, shown above from column 34847 to 36006. `
    + `To read it there, call the dsh \`read\` tool with file_path=\`${path}\`, offset=1, limit=1, column=34847.]`)
  const read = await s.text('read', { file_path: path, offset: 1, limit: 1, column: 34_847 })
  expect(read).toContain(`     1\t${'a'.repeat(154)}NEEDLE`)
})

it('keeps cutting a long line at its start when the match is within what the cut shows', async () => {
  s = await stack({ policy: true })
  await s.put('min.js', `NEEDLE${'b'.repeat(3_000)}\n`)
  const found = await s.text('grep', { pattern: 'needle', case_insensitive: true, output_mode: 'content' })
  expect(found).toContain('     1\tNEEDLEbbb')
  expect(found).not.toContain('the match ends at column')
  expect(found).toContain('[Lines longer than 2000 characters are cut:')
})

it('names include_ignored after a search that found nothing only when ignored files hold a match', async () => {
  s = await stack({ policy: true })
  await s.put('.gitignore', 'build/\n')
  await s.put('build/out.js', 'needle\n')
  await s.put('src/a.js', 'hay\n')
  expect(await s.text('grep', { pattern: 'needle' })).toContain('files excluded by .gitignore do match: to search them too, call the dsh `grep` tool with include_ignored=true.')
  const nowhere = await s.text('grep', { pattern: 'absent' })
  expect(nowhere).toMatch(/: check the pattern \(a JavaScript regular expression\) and the path\.$/)
  expect(nowhere).not.toContain('include_ignored')
})

it('names include_ignored after a glob that found nothing only when ignored files match', async () => {
  s = await stack({ policy: true })
  await s.put('.gitignore', 'build/\n')
  await s.put('build/out.map', 'x\n')
  expect(await s.text('glob', { pattern: '**/*.map' })).toContain('files excluded by .gitignore do match: to list them too, call the dsh `glob` tool with include_ignored=true.')
  const none = await s.text('glob', { pattern: '**/*.nothing' })
  expect(none).toMatch(/: check the pattern, or pass another path\.$/)
})
