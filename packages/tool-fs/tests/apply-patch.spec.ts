import { MemoryFileSystem, MemoryVolume } from '@deepseek-ai/dsh-fs/memory'
import policyPlugin from '@deepseek-ai/dsh-fs-policy'
import toolsPlugin, { bareToolMentions } from '@deepseek-ai/dsh-tools'
import { Context } from 'cordis'
import { type ProviderKind, stack as assembled, type Stack } from '@deepseek-ai/dsh-test-kit'
import { afterEach, describe, expect, it } from 'vitest'
import toolFsPlugin from '../src/index'

const patch = (...lines: string[]) => ['*** Begin Patch', ...lines, '*** End Patch'].join('\n')
const text = (result: { content: { text: string }[] }) => result.content.map((part) => part.text).join('')

const stacks: Stack[] = []
afterEach(async () => {
  await Promise.all(stacks.splice(0).map((s) => s.dispose()))
})

async function stack(provider: ProviderKind, policy = true): Promise<Stack> {
  const s = await assembled({ provider, tools: ['tool-fs'], policy, toolFs: { applyPatch: true } })
  stacks.push(s)
  return s
}

const utf8 = async (s: Stack, name: string) => (await s.bytes(name))?.toString('utf8')

describe.each(['memory', 'local', 'e2b'] as const)('apply_patch on %s', (provider) => {
  it('adds, updates, moves and deletes in one call, and lists what happened to each file', async () => {
    const s = await stack(provider)
    await s.put('src/a.py', 'def f():\n    return 1\n\ndef g():\n    return 2\n')
    await s.put('src/old.py', 'x = 1\n')
    await s.put('src/gone.py', 'bye\n')
    for (const name of ['src/a.py', 'src/old.py', 'src/gone.py']) await s.ok('read', { file_path: name })
    const result = await s.call('apply_patch', { input: patch(
      '*** Add File: src/new.py',
      '+print("hi")',
      '*** Update File: src/a.py',
      '@@ def g():',
      '-    return 2',
      '+    return 20',
      '*** Update File: src/old.py',
      '*** Move to: src/renamed.py',
      '@@',
      '-x = 1',
      '+x = 2',
      '*** Delete File: src/gone.py',
    ) })
    expect(result.isError).toBe(false)
    expect(await utf8(s, 'src/new.py')).toBe('print("hi")\n')
    expect(await utf8(s, 'src/a.py')).toBe('def f():\n    return 1\n\ndef g():\n    return 20\n')
    expect(await s.bytes('src/old.py')).toBeUndefined()
    expect(await utf8(s, 'src/renamed.py')).toBe('x = 2\n')
    expect(await s.bytes('src/gone.py')).toBeUndefined()
    const shown = text(result)
    expect(shown).toMatch(/^Applied the patch: 4 files changed\./)
    expect(shown).toMatch(/- added .*src\/new\.py \(1 line\)/)
    expect(shown).toMatch(/- updated .*src\/a\.py: line 5 \(\+1 -1\)/)
    expect(shown).toContain('     5\t    return 20')
    expect(shown).toMatch(/- moved .*src\/old\.py to .*src\/renamed\.py and updated it: line 1 \(\+1 -1\)/)
    expect(shown).toMatch(/- deleted .*src\/gone\.py/)
    // What the patch did counts as seen: the next edits need no read.
    await s.ok('edit', { file_path: 'src/renamed.py', old_string: 'x = 2', new_string: 'x = 3' })
    await s.ok('edit', { file_path: 'src/new.py', old_string: 'hi', new_string: 'hello' })
  })

  it('writes nothing when a hunk of the last file is not found, and shows the closest text as edit does', async () => {
    const s = await stack(provider)
    await s.put('one.txt', 'alpha\n')
    await s.put('two.py', 'def f():\n    if x:\n        return 1\n')
    await s.ok('read', { file_path: 'one.txt' })
    await s.ok('read', { file_path: 'two.py' })
    const result = await s.call('apply_patch', { input: patch(
      '*** Update File: one.txt',
      '@@',
      '-alpha',
      '+beta',
      '*** Add File: three.txt',
      '+new',
      '*** Update File: two.py',
      '@@',
      '   if x:',
      '-      return 1',
      '+      return 2',
    ) })
    expect(result.error?.code).toBe('FS_EDIT_NOT_FOUND')
    const shown = text(result)
    expect(shown).toMatch(/^apply_patch wrote nothing\. Hunk 1 of the Update File section for .*two\.py \(section 3, patch line 9\) was not found/)
    expect(shown).toContain('The closest text is lines 2-3:\n     2\t    if x:\n     3\t        return 1')
    expect(shown).toContain("It differs from the hunk's ' ' and '-' lines in: indentation (line 3: 8 spaces in the file, 6 spaces in the hunk's ' ' and '-' lines).")
    expect(shown).toMatch(/Nothing was written to any file; fix that section and send the whole patch again\.$/)
    expect(await utf8(s, 'one.txt')).toBe('alpha\n')
    expect(await s.bytes('three.txt')).toBeUndefined()
  })

  it('refuses an ambiguous hunk naming the lines, and applies it once an @@ anchor picks one', async () => {
    const s = await stack(provider)
    await s.put('m.py', 'def a():\n    return 0\n\ndef b():\n    return 0\n')
    await s.ok('read', { file_path: 'm.py' })
    const ambiguous = await s.call('apply_patch', { input: patch('*** Update File: m.py', '@@', '-    return 0', '+    return 1') })
    expect(text(ambiguous)).toMatch(/matches 2 places in .*m\.py: lines 2, 5\. Add unchanged lines/)
    expect(await utf8(s, 'm.py')).toBe('def a():\n    return 0\n\ndef b():\n    return 0\n')
    await s.ok('apply_patch', { input: patch('*** Update File: m.py', '@@ def b():', '-    return 0', '+    return 1') })
    expect(await utf8(s, 'm.py')).toBe('def a():\n    return 0\n\ndef b():\n    return 1\n')
  })

  it('refuses to update or delete a file the session has not read, and writes nothing', async () => {
    const s = await stack(provider)
    await s.put('seen.txt', 'a\n')
    await s.put('unseen.txt', 'b\n')
    await s.ok('read', { file_path: 'seen.txt' })
    const result = await s.call('apply_patch', { input: patch('*** Update File: seen.txt', '@@', '-a', '+A', '*** Delete File: unseen.txt') })
    expect(result.error?.code).toBe('FS_NOT_OBSERVED')
    expect(text(result)).toMatch(/^apply_patch wrote nothing: section 2 \(Delete File: .*unseen\.txt\) was refused\. .*read the file, then retry\nNo file was changed/)
    expect(await utf8(s, 'seen.txt')).toBe('a\n')
    expect(await utf8(s, 'unseen.txt')).toBe('b\n')
  })

  it('refuses a file changed since it was read as stale, and writes nothing', async () => {
    const s = await stack(provider)
    await s.put('f.txt', 'one\n')
    await s.put('g.txt', 'two\n')
    await s.ok('read', { file_path: 'f.txt' })
    await s.ok('read', { file_path: 'g.txt' })
    await s.put('g.txt', 'two, changed by someone\n')
    const result = await s.call('apply_patch', { input: patch('*** Update File: f.txt', '@@', '-one', '+ONE', '*** Update File: g.txt', '@@', '-two, changed by someone', '+x') })
    expect(result.error?.code).toBe('FS_STALE_VERSION')
    expect(text(result)).toMatch(/section 2 \(Update File: .*g\.txt\) was refused/)
    expect(await utf8(s, 'f.txt')).toBe('one\n')
    expect(await utf8(s, 'g.txt')).toBe('two, changed by someone\n')
  })

  it('never overwrites with Add, nor moves onto an existing file', async () => {
    const s = await stack(provider)
    await s.put('taken.txt', 'theirs\n')
    await s.put('src.txt', 'mine\n')
    await s.ok('read', { file_path: 'src.txt' })
    const add = await s.call('apply_patch', { input: patch('*** Add File: taken.txt', '+mine') })
    expect(text(add)).toMatch(/already exists \(a regular file\), and '\*\*\* Add File' never overwrites/)
    const move = await s.call('apply_patch', { input: patch('*** Update File: src.txt', '*** Move to: taken.txt') })
    expect(text(move)).toMatch(/destination .*taken\.txt already exists \(a regular file\), and '\*\*\* Move to' never overwrites/)
    expect(await utf8(s, 'taken.txt')).toBe('theirs\n')
    expect(await utf8(s, 'src.txt')).toBe('mine\n')
  })

  it('keeps the BOM and CRLF line endings of an updated file', async () => {
    const s = await stack(provider)
    await s.put('w.txt', Buffer.from('\ufeffone\r\ntwo\r\nthree\r\n', 'utf8'))
    await s.ok('read', { file_path: 'w.txt' })
    await s.ok('apply_patch', { input: patch('*** Update File: w.txt', '@@', ' one', '-two', '+TWO', '+2b') })
    expect(await utf8(s, 'w.txt')).toBe('\ufeffone\r\nTWO\r\n2b\r\nthree\r\n')
  })

  it('reports exactly which files changed when a later publication fails', async () => {
    const s = await stack(provider)
    await s.put('a.txt', 'a\n')
    await s.put('blocker', 'a file where a directory is needed\n')
    await s.put('c.txt', 'c\n')
    await s.ok('read', { file_path: 'a.txt' })
    await s.ok('read', { file_path: 'c.txt' })
    // Nothing is at blocker/new.txt when the patch is checked; its publication then finds a file for a parent.
    const result = await s.call('apply_patch', { input: patch('*** Update File: a.txt', '@@', '-a', '+A', '*** Add File: blocker/new.txt', '+n', '*** Update File: c.txt', '@@', '-c', '+C') })
    expect(result.error?.code).toBe('FS_NOT_DIRECTORY')
    const shown = text(result)
    expect(shown).toMatch(/^apply_patch stopped partway: 1 file was changed before .*blocker\/new\.txt failed\./)
    expect(shown).toMatch(/Changed \(do not send these sections again\):\n- updated .*a\.txt: line 1 \(\+1 -1\)/)
    expect(shown).toMatch(/Failed, unchanged: .*blocker\/new\.txt: /)
    expect(shown).toMatch(/Not attempted, unchanged: .*c\.txt\./)
    expect(await utf8(s, 'a.txt')).toBe('A\n')
    expect(await utf8(s, 'c.txt')).toBe('c\n')
  })

  it('refuses a file named by two sections, and writes nothing', async () => {
    const s = await stack(provider)
    await s.put('d.txt', 'd\n')
    await s.ok('read', { file_path: 'd.txt' })
    const result = await s.call('apply_patch', { input: patch('*** Add File: e.txt', '+e', '*** Update File: d.txt', '@@', '-d', '+D', '*** Update File: ./d.txt', '@@', '-D', '+DD') })
    expect(result.error?.code).toBe('INVALID_ARGUMENTS')
    expect(text(result)).toMatch(/section 3 \(Update File: .*d\.txt\) was refused\. .*d\.txt is also named by section 2/)
    expect(await utf8(s, 'd.txt')).toBe('d\n')
    expect(await s.bytes('e.txt')).toBeUndefined()
  })

  it('refuses a patch that is not in the format, naming the line', async () => {
    const s = await stack(provider)
    const result = await s.call('apply_patch', { input: '*** Begin Patch\n*** Update File: x\n@@\nno prefix\n*** End Patch' })
    expect(result.error?.code).toBe('INVALID_ARGUMENTS')
    expect(text(result)).toMatch(/line 4: 'no prefix' is not a hunk line/)
  })

  it('accepts the heredoc wrapper and surrounding whitespace', async () => {
    const s = await stack(provider)
    await s.ok('apply_patch', { input: `\n  <<'EOF'\n${patch('*** Add File: h.txt', '+hi')}\nEOF\n  ` })
    expect(await utf8(s, 'h.txt')).toBe('hi\n')
  })
})

describe('apply_patch in the system prompt', () => {
  it('is named, with its read-first rule, only when it is registered', async () => {
    const s = await stack('memory')
    expect(s.ctx.systemPrompt.render()).toContain('- The dsh `apply_patch` tool changes several files at once with a patch (all of it or none). Show every file')
    // Named only as "the dsh `name` tool", so the texts stay right under any client's prefix.
    const names = s.ctx.tools.list().map((tool) => tool.name)
    const patchTool = s.ctx.tools.list().find((tool) => tool.name === 'apply_patch')!
    const texts = [s.ctx.systemPrompt.render(), patchTool.description, JSON.stringify(patchTool.inputSchema)]
    expect(texts.flatMap((text) => bareToolMentions(text, names))).toEqual([])
    const without = await assembled({ provider: 'memory', tools: ['tool-fs'] })
    stacks.push(without)
    expect(without.ctx.systemPrompt.render()).not.toContain('apply_patch')
    expect(without.ctx.tools.list().map((tool) => tool.name)).not.toContain('apply_patch')
  })
})

describe('apply_patch refusals of hunks', () => {
  it('refuses to rewrite a file above the bound, before reading it, and names the tool that can', async () => {
    const s = await stack('memory')
    await s.put('big.txt', `${'x'.repeat(33 * 1024 * 1024)}\n`)
    await s.put('small.txt', 'a\n')
    await s.ok('read', { file_path: 'big.txt', limit: 1, column: 1 })
    await s.ok('read', { file_path: 'small.txt' })
    const result = await s.call('apply_patch', { input: patch('*** Update File: small.txt', '@@', '-a', '+b', '*** Update File: big.txt', '@@', '+y') })
    expect(result.error?.code).toBe('FS_TOO_LARGE')
    expect(text(result)).toMatch(/big\.txt has 34603009 bytes: a patch rewrites files of at most 33554432 bytes, and at most 67108864 bytes of files in all\. Change a large file with the dsh `edit` tool/)
    expect(await utf8(s, 'small.txt')).toBe('a\n')
  })

  it('names an anchor that matches no line, shows the closest line, and writes nothing', async () => {
    const s = await stack('memory')
    await s.put('k.py', 'class Greeter:\n    def greet(self):\n        return "hi"\n')
    await s.ok('read', { file_path: 'k.py' })
    const result = await s.call('apply_patch', { input: patch('*** Update File: k.py', '@@ def greet(self, name):', '-        return "hi"', '+        return name') })
    expect(result.error?.code).toBe('FS_EDIT_NOT_FOUND')
    expect(text(result)).toMatch(/^apply_patch wrote nothing\. The anchor '@@ def greet\(self, name\):' of hunk 1 of the Update File section for .*k\.py \(section 1, patch line 3\) matches no line of .*k\.py\./)
    expect(await utf8(s, 'k.py')).toBe('class Greeter:\n    def greet(self):\n        return "hi"\n')
  })

  it('names hunks given out of the file\'s order', async () => {
    const s = await stack('memory')
    await s.put('o.txt', 'one\ntwo\nthree\n')
    await s.ok('read', { file_path: 'o.txt' })
    const result = await s.call('apply_patch', { input: patch('*** Update File: o.txt', '@@', '-three', '+3', '@@', '-one', '+1') })
    expect(text(result)).toMatch(/Hunk 2 of the Update File section for .*o\.txt \(section 1, patch line 6\) was not found after the hunk before it; its lines occur at line 1 of .*o\.txt, above that hunk\. Hunks of one file must come in the file's order/)
    expect(await utf8(s, 'o.txt')).toBe('one\ntwo\nthree\n')
  })
})

describe('apply_patch after the editor family\'s view', () => {
  it('counts a str_replace_editor view as the read an Update or Delete needs', async () => {
    const s = await assembled({ provider: 'local', tools: ['tool-fs', 'str-replace-editor'], toolFs: { applyPatch: true } })
    stacks.push(s)
    await s.put('v.txt', 'one\ntwo\n')
    await s.put('w.txt', 'bye\n')
    const unseen = await s.call('apply_patch', { input: patch('*** Update File: v.txt', '@@', ' one', '-two', '+2') })
    expect(unseen.error?.code).toBe('FS_NOT_OBSERVED')
    await s.ok('str_replace_editor', { command: 'view', path: s.path('v.txt') })
    await s.ok('str_replace_editor', { command: 'view', path: s.path('w.txt'), view_range: [1, 1] })
    await s.ok('apply_patch', { input: patch('*** Update File: v.txt', '@@', ' one', '-two', '+2', '*** Delete File: w.txt') })
    expect(await utf8(s, 'v.txt')).toBe('one\n2\n')
    expect(await s.bytes('w.txt')).toBeUndefined()
  })
})

describe('apply_patch, all or nothing under a race', () => {
  it('stops at a file another writer changed after the check, and says the earlier file changed', async () => {
    const s = await stack('memory')
    await s.put('a.txt', 'a\n')
    await s.put('b.txt', 'b\n')
    await s.ok('read', { file_path: 'a.txt' })
    await s.ok('read', { file_path: 'b.txt' })
    // The competitor writes b.txt while a.txt is being published: after the whole patch was checked.
    const volume = (s.fs as MemoryFileSystem).volume
    volume.beforeNextPublish(async () => volume.writeFile(s.path('b.txt'), 'b, theirs\n'))
    const result = await s.call('apply_patch', { input: patch('*** Update File: a.txt', '@@', '-a', '+A', '*** Update File: b.txt', '@@', '-b', '+B') })
    expect(result.error?.code).toBe('FS_STALE_VERSION')
    expect(text(result)).toMatch(/1 file was changed before .*b\.txt failed/)
    expect(await utf8(s, 'a.txt')).toBe('A\n')
    expect(await utf8(s, 'b.txt')).toBe('b, theirs\n')
  })
})

describe('apply_patch on a provider written before remove and rename', () => {
  /** The reference provider without the two optional methods, as a third-party provider of the second wave is. */
  class OlderProvider extends MemoryFileSystem {}
  Object.defineProperty(OlderProvider.prototype, 'remove', { value: undefined })
  Object.defineProperty(OlderProvider.prototype, 'rename', { value: undefined })

  async function older() {
    const volume = new MemoryVolume()
    volume.mkdir('/work')
    const ctx = new Context()
    await ctx.plugin(OlderProvider, { cwd: '/work', volume })
    await ctx.plugin(policyPlugin)
    await ctx.plugin(toolsPlugin)
    await ctx.plugin(toolFsPlugin, { applyPatch: true })
    const session = { cwd: '/work' }
    const call = (input: string) => ctx.tools.execute({ name: 'apply_patch', arguments: { input }, agent: { session } })
    const read = (path: string) => ctx.tools.execute({ name: 'read', arguments: { file_path: path }, agent: { session } })
    return { volume, call, read }
  }

  it('refuses a Delete or a Move by naming what the provider lacks, and writes nothing', async () => {
    const { volume, call, read } = await older()
    volume.writeFile('/work/a.txt', 'a\n')
    await read('a.txt')
    const removal = await call(patch('*** Add File: b.txt', '+b', '*** Delete File: a.txt'))
    expect(removal.error?.code).toBe('UNSUPPORTED')
    expect(text(removal)).toMatch(/section 2 \(Delete File: .*a\.txt\) was refused\. The filesystem provider OlderProvider cannot delete files \(it does not implement the optional `remove`\)/)
    const move = await call(patch('*** Update File: a.txt', '*** Move to: c.txt'))
    expect(move.error?.code).toBe('UNSUPPORTED')
    expect(text(move)).toMatch(/cannot move files \(it does not implement the optional `rename`\)\. Leave the '\*\*\* Move to' out of the patch/)
    expect(new TextDecoder().decode(volume.readFile('/work/a.txt'))).toBe('a\n')
    expect(volume.readFile('/work/b.txt')).toBeUndefined()
    // What needs neither still works.
    expect((await call(patch('*** Update File: a.txt', '@@', '-a', '+A'))).isError).toBe(false)
    expect(new TextDecoder().decode(volume.readFile('/work/a.txt'))).toBe('A\n')
  })
})
