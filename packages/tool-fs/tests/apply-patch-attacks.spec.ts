import { mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type Stack, stack } from './harness'

// apply_patch as an attacker writes it, on the local disk contained in its root: every section
// that names a place outside the root, or a file the session has not read, stops the whole patch.

let s: Stack
afterEach(async () => {
  await s.dispose()
})

interface Outside {
  name: string
  path: string
}

const patch = (...lines: string[]) => ['*** Begin Patch', ...lines, '*** End Patch'].join('\n')

async function outsideUnchanged(): Promise<void> {
  expect((await readdir(s.outside)).sort()).toEqual(['kept.txt', 'sub'])
  expect(await readFile(join(s.outside, 'kept.txt'), 'utf8')).toBe('outside\n')
}

describe('apply_patch paths an attacker writes', () => {
  it.each([
    ['Add through ..', (o: Outside) => patch(`*** Add File: ../${o.name}/new.txt`, '+x')],
    ['Add at an absolute path outside', (o: Outside) => patch(`*** Add File: ${o.path}/new.txt`, '+x')],
    ['Add under a symlinked parent', () => patch('*** Add File: link/new.txt', '+x')],
    ['Delete through a symlinked parent', () => patch('*** Delete File: link/kept.txt')],
    ['Update through a symlinked parent', () => patch('*** Update File: link/kept.txt', '@@', '-outside', '+inside')],
    ['Move out through ..', (o: Outside) => patch('*** Update File: mine.txt', `*** Move to: ../${o.name}/moved.txt`, '@@', '-mine', '+moved')],
    ['Move to an absolute path outside', (o: Outside) => patch('*** Update File: mine.txt', `*** Move to: ${o.path}/moved.txt`, '@@', '-mine', '+moved')],
    ['Move into a symlinked parent', () => patch('*** Update File: mine.txt', '*** Move to: link/sub/moved.txt', '@@', '-mine', '+moved')],
  ])('refuses %s, writing nothing anywhere', async (_, make) => {
    s = await stack({ policy: true, rooted: true, config: { applyPatch: true } })
    await writeFile(join(s.outside, 'kept.txt'), 'outside\n')
    await mkdir(join(s.outside, 'sub'))
    await symlink(s.outside, s.path('link'))
    await s.put('mine.txt', 'mine\n')
    await s.ok('read', { file_path: 'mine.txt' })
    // The stack's outside directory is a sibling of its root.
    const result = await s.call('apply_patch', { input: make({ name: s.outside.split('/').at(-1)!, path: s.outside }) })
    expect(result.error?.code, result.content[0]?.text).toBe('FS_OUTSIDE_ROOT')
    await outsideUnchanged()
    expect(await readFile(s.path('mine.txt'), 'utf8')).toBe('mine\n')
  })

  it('refuses to move a file onto one that exists, leaving both as they were', async () => {
    s = await stack({ policy: true, rooted: true, config: { applyPatch: true } })
    await s.put('mine.txt', 'mine\n')
    await s.put('theirs.txt', 'theirs\n')
    await s.ok('read', { file_path: 'mine.txt' })
    const onto = await s.call('apply_patch', { input: patch('*** Update File: mine.txt', '*** Move to: theirs.txt', '@@', '-mine', '+moved') })
    expect(onto.isError).toBe(true)
    expect(await readFile(s.path('theirs.txt'), 'utf8')).toBe('theirs\n')
    expect(await readFile(s.path('mine.txt'), 'utf8')).toBe('mine\n')
  })
})
