import type { FsTarget } from '@deepseek-ai/dsh-fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { INLINE_COMMAND_MAX } from '../src/publish'
import { PUBLISH } from '../src/scripts'
import { controlCommand } from '../src/shell'
import { declaredPng, minimalPdf, stack } from '@deepseek-ai/dsh-test-kit'
import { freshDir, type Provider, startProvider, useEmulatedSandbox } from './support/sandbox'

// The README's table of round trips comes from these numbers: each is the count of HTTP requests
// the emulator received during one operation (a command is one Process/Start, an upload one POST).
const sandbox = useEmulatedSandbox()
let provider: Provider
let dir: string

beforeAll(async () => {
  provider = await startProvider(sandbox.emulator.url)
})
afterAll(() => provider?.dispose())

async function count(operation: () => Promise<unknown>): Promise<Record<string, number>> {
  sandbox.emulator.resetRequests()
  await operation()
  return sandbox.emulator.stats()
}

async function seeded(name: string, text: string): Promise<FsTarget> {
  dir = await freshDir(sandbox.root)
  await writeFile(join(dir, name), text)
  return provider.fs.resolve(join(dir, name))
}

const command = (n: number) => (n === 0 ? {} : { 'POST /process.Process/Start': n })
const commandsAndUploads = (commands: number, uploads: number) => ({ ...command(commands), 'POST /files': uploads })

describe('round trips per operation', () => {
  it('connects with one probe command and no API call', async () => {
    sandbox.emulator.resetRequests()
    const other = await startProvider(sandbox.emulator.url)
    expect(sandbox.emulator.stats()).toEqual(command(1))
    await other.dispose()
  })

  it('resolves, stats, reads and lists with one command each', async () => {
    const target = await seeded('a.txt', 'alpha\n')
    expect(await count(() => provider.fs.resolve(join(dir, 'a.txt')))).toEqual(command(1))
    expect(await count(() => provider.fs.stat(target))).toEqual(command(1))
    expect(await count(() => provider.fs.readText(target))).toEqual(command(1))
    expect(await count(() => provider.fs.listDir({ targetKey: dir, displayPath: dir } as FsTarget))).toEqual(command(1))
  })

  it('removes and moves a file with one command each', async () => {
    const target = await seeded('a.txt', 'alpha\n')
    const version = (await provider.fs.stat(target))!.version
    const destination = await provider.fs.resolve(join(dir, 'sub', 'b.txt'))
    let moved = version
    expect(await count(async () => { moved = (await provider.fs.rename!(target, destination, { expected: { version } })).version })).toEqual(command(1))
    expect(await readFile(join(dir, 'sub', 'b.txt'), 'utf8')).toBe('alpha\n')
    expect(await count(() => provider.fs.remove!(destination, { expected: { version: moved } }))).toEqual(command(1))
  })

  it('streams with one type check and one download', async () => {
    const target = await seeded('a.txt', 'alpha\n')
    expect(await count(async () => {
      for await (const _ of provider.fs.streamText(target));
    })).toEqual({ ...command(1), 'GET /files': 1 })
  })

  it('inspects a path (key, stat and text of a small file) with one command', async () => {
    const target = await seeded('a.txt', 'alpha\n')
    expect(await count(() => provider.fs.inspect(join(dir, 'a.txt'), { textUpTo: 1024 }))).toEqual(command(1))
    expect(await count(() => provider.fs.inspect(join(dir, 'missing.txt'), { textUpTo: 1024 }))).toEqual(command(1))
    expect((await provider.fs.inspect(join(dir, 'a.txt'), { textUpTo: 1024 })).target).toEqual(target)
  })

  it('names a mutation target without a request: from memory once the path or its directory was seen, else lexically', async () => {
    await seeded('a.txt', 'alpha\n')
    expect(await count(() => provider.fs.resolveForMutation(join(dir, 'a.txt')))).toEqual({})
    expect(await count(() => provider.fs.resolveForMutation(join(dir, 'new.txt')))).toEqual({})
    expect(await count(() => provider.fs.resolveForMutation(join(dir, 'unseen', 'new.txt')))).toEqual({})
    expect((await provider.fs.resolveForMutation(join(dir, 'unseen', 'new.txt'))).targetKey).toBe(join(dir, 'unseen', 'new.txt'))
  })

  it('names a discovery root without a request, and walks and searches it with one command each', async () => {
    await seeded('a.txt', 'alpha\n')
    let root: FsTarget | undefined
    expect(await count(async () => (root = await provider.fs.resolveForDiscovery(dir)))).toEqual({})
    expect(await count(() => provider.fs.walk(root!, { limit: 10 }))).toEqual(command(1))
    expect(await count(() => provider.fs.search(root!, { pattern: 'alpha', mode: 'files', limit: 10 }))).toEqual(command(1))
  })

  it('creates under createIfAbsent with one command that carries the bytes', async () => {
    await seeded('a.txt', 'alpha\n')
    const fresh = await provider.fs.resolve(join(dir, 'new.txt'))
    expect(await count(() => provider.fs.writeText(fresh, 'x', { expected: { kind: 'createIfAbsent' } }))).toEqual(command(1))
    expect(await readFile(join(dir, 'new.txt'), 'utf8')).toBe('x')
  })

  it('writes without a guard with a read and a publish', async () => {
    const target = await seeded('a.txt', 'alpha\n')
    expect(await count(() => provider.fs.writeText(target, 'beta\n'))).toEqual(command(2))
    const fresh = await provider.fs.resolve(join(dir, 'new.txt'))
    expect(await count(() => provider.fs.writeText(fresh, 'x'))).toEqual(command(2))
  })

  it('replaces under replaceIfVersion with a read and one compare-and-swap that carries the bytes', async () => {
    const target = await seeded('a.txt', 'alpha\n')
    const version = (await provider.fs.stat(target))!.version
    expect(await count(() => provider.fs.writeText(target, 'beta\n', { expected: { kind: 'replaceIfVersion', version } }))).toEqual(command(2))
  })

  it('edits with a read and one compare-and-swap that carries the bytes', async () => {
    const target = await seeded('a.txt', 'alpha\n')
    const version = (await provider.fs.stat(target))!.version
    expect(await count(() => provider.fs.editText(target, { oldString: 'alpha', newString: 'beta', replaceAll: false }, { expected: { version } })))
      .toEqual(command(2))
  })

  it('reads and edits a file in a legacy encoding with the requests of a UTF-8 one (decoded on our side)', async () => {
    dir = await freshDir(sandbox.root)
    await writeFile(join(dir, 'fr.txt'), Buffer.from('Le ch\xe2teau de la for\xeat \xe9tait tr\xe8s ancien ; les \xe9l\xe8ves \xe9tudiaient pr\xe8s de la fen\xeatre.\n', 'latin1'))
    const target = await provider.fs.resolve(join(dir, 'fr.txt'))
    const decoding = { encoding: 'windows-1252' as const }
    expect(await count(() => provider.fs.readText(target, { decoding }))).toEqual(command(1))
    const version = (await provider.fs.stat(target))!.version
    const edit = { oldString: 'ancien', newString: 'ancienne', replaceAll: false }
    expect(await count(() => provider.fs.editText(target, edit, { expected: { version }, decoding }))).toEqual(command(2))
    expect((await readFile(join(dir, 'fr.txt'))).toString('latin1')).toContain('tr\xe8s ancienne ;')
  })

  it('carries content up to the bound in the command and uploads what is larger', async () => {
    await seeded('a.txt', 'alpha\n')
    const largest = largestInline(join(dir, 'edge.bin'))
    const edge = Buffer.alloc(largest, 'e').toString()
    const target = await provider.fs.resolve(join(dir, 'edge.bin'))
    expect(await count(() => provider.fs.writeText(target, edge, { expected: { kind: 'createIfAbsent' } }))).toEqual(command(1))
    expect((await readFile(join(dir, 'edge.bin'), 'utf8')).length).toBe(largest)
    const above = await provider.fs.resolve(join(dir, 'above.txt'))
    const big = Buffer.alloc(largest + 3, 'b').toString()
    expect(await count(() => provider.fs.writeText(above, big, { expected: { kind: 'createIfAbsent' } }))).toEqual(commandsAndUploads(1, 1))
    expect(await readFile(join(dir, 'above.txt'), 'utf8')).toBe(big)
  })

  it('refuses a stale replacement or edit after one read, uploading nothing', async () => {
    const target = await seeded('a.txt', 'alpha\n')
    const version = (await provider.fs.stat(target))!.version
    await writeFile(join(dir, 'a.txt'), 'changed\n')
    const stale = { kind: 'replaceIfVersion', version } as const
    expect(await count(() => provider.fs.writeText(target, 'x', { expected: stale }).catch(() => undefined))).toEqual(command(1))
    expect(await count(() => provider.fs.editText(target, { oldString: 'a', newString: 'b', replaceAll: false }, { expected: { version } }).catch(() => undefined)))
      .toEqual(command(1))
  })

  it('answers a no-op edit from the read alone', async () => {
    const target = await seeded('a.txt', 'alpha\n')
    expect(await count(() => provider.fs.editText(target, { oldString: 'alpha', newString: 'alpha', replaceAll: false }))).toEqual(command(1))
  })
})

describe('round trips per tool call (default policy)', () => {
  it('reads with one request, creates with one, replaces and edits with two', async () => {
    await using tools = await stack({ provider: 'e2b', sandboxUrl: sandbox.emulator.url, tools: ['tool-fs'] })
    dir = tools.dir
    await mkdir(join(dir, 'sub'))
    await writeFile(join(dir, 'sub', 'a.txt'), 'alpha\n')
    expect(await count(() => tools.call('read', { file_path: 'sub/a.txt' }))).toEqual(command(1))
    expect(await count(() => tools.call('write', { file_path: 'sub/new.txt', content: 'x\n' }))).toEqual(command(1))
    expect(await count(() => tools.call('write', { file_path: 'sub/a.txt', content: 'beta\n' }))).toEqual(command(2))
    expect(await count(() => tools.call('edit', { file_path: 'sub/a.txt', old_string: 'beta', new_string: 'gamma' }))).toEqual(command(2))
    expect(await readFile(join(dir, 'sub', 'a.txt'), 'utf8')).toBe('gamma\n')
    expect(await readFile(join(dir, 'sub', 'new.txt'), 'utf8')).toBe('x\n')
  })

  it('reads an image or a PDF with one request, in either tool family, and replaces the image read with two', async () => {
    await using tools = await stack({
      provider: 'e2b', sandboxUrl: sandbox.emulator.url, tools: ['tool-fs', 'str-replace-editor'], toolFs: { readMedia: true }, editor: { readMedia: true },
    })
    // A whole 8×8 grey PNG (every row present) and a two-page PDF, written byte by byte.
    await writeFile(join(tools.dir, 'logo.png'), declaredPng(8, 8, 8))
    await writeFile(join(tools.dir, 'doc.pdf'), minimalPdf([['first'], ['second']]))
    let image: Awaited<ReturnType<typeof tools.call>> | undefined
    expect(await count(async () => (image = await tools.call('read', { file_path: 'logo.png' })))).toEqual(command(1))
    expect(image!.images).toEqual([{ type: 'image', mimeType: 'image/png', data: Buffer.from(declaredPng(8, 8, 8)).toString('base64') }])
    expect(await count(async () => expect(await tools.ok('read', { file_path: 'doc.pdf' })).toContain('--- Page 2 ---\nsecond'))).toEqual(command(1))
    expect(await count(async () => expect((await tools.call('str_replace_editor', { command: 'view', path: 'logo.png' })).images).toHaveLength(1)))
      .toEqual(command(1))
    expect(await count(() => tools.ok('write', { file_path: 'logo.png', content: 'text now\n' }))).toEqual(command(2))
    expect(await readFile(join(tools.dir, 'logo.png'), 'utf8')).toBe('text now\n')
  })

  it('multi-edits a read file with two requests: its read and one compare-and-swap', async () => {
    await using tools = await stack({ provider: 'e2b', sandboxUrl: sandbox.emulator.url, tools: ['tool-fs'] })
    await writeFile(join(tools.dir, 'a.txt'), 'alpha\nbeta\n')
    await tools.ok('read', { file_path: 'a.txt' })
    const edits = [{ old_string: 'alpha', new_string: 'one' }, { old_string: 'beta', new_string: 'two' }]
    expect(await count(() => tools.ok('multi_edit', { file_path: 'a.txt', edits }))).toEqual(command(2))
    expect(await readFile(join(tools.dir, 'a.txt'), 'utf8')).toBe('one\ntwo\n')
  })

  it('lists, globs and greps with one request each, the first call included', async () => {
    await using tools = await stack({ provider: 'e2b', sandboxUrl: sandbox.emulator.url, tools: ['tool-fs'] })
    await mkdir(join(tools.dir, 'src'))
    await writeFile(join(tools.dir, 'src', 'a.ts'), 'const needle = 1\n')
    expect(await count(async () => expect(await tools.ok('list', {})).toContain('a.ts'))).toEqual(command(1))
    expect(await count(async () => expect(await tools.ok('glob', { pattern: '**/*.ts' })).toContain(join(tools.dir, 'src', 'a.ts')))).toEqual(command(1))
    expect(await count(async () => expect(await tools.ok('grep', { pattern: 'needle', path: 'src' })).toContain('a.ts'))).toEqual(command(1))
    expect(await count(async () => expect(await tools.ok('list', { path: 'src' })).toContain('a.ts'))).toEqual(command(1))
  })

  it('greps and globs with one request when nothing matches, and still say whether ignored files would', async () => {
    await using tools = await stack({ provider: 'e2b', sandboxUrl: sandbox.emulator.url, tools: ['tool-fs'] })
    await writeFile(join(tools.dir, '.gitignore'), 'build/\n')
    await mkdir(join(tools.dir, 'build'))
    await writeFile(join(tools.dir, 'build', 'out.js'), 'const hidden = 1\n')
    await writeFile(join(tools.dir, 'a.ts'), 'const shown = 1\n')
    let inIgnored = ''
    let nowhere = ''
    expect(await count(async () => (inIgnored = await tools.ok('grep', { pattern: 'hidden' })))).toEqual(command(1))
    expect(await count(async () => (nowhere = await tools.ok('grep', { pattern: 'absent' })))).toEqual(command(1))
    expect(inIgnored).toContain('include_ignored')
    expect(nowhere).not.toContain('include_ignored')
    expect(await count(async () => (inIgnored = await tools.ok('glob', { pattern: '**/*.js' })))).toEqual(command(1))
    expect(await count(async () => (nowhere = await tools.ok('glob', { pattern: '**/*.py' })))).toEqual(command(1))
    expect(inIgnored).toContain('include_ignored')
    expect(nowhere).not.toContain('include_ignored')
  })

  it('creates a file in a directory never seen before with one request, and still never replaces one it did not see', async () => {
    await using tools = await stack({ provider: 'e2b', sandboxUrl: sandbox.emulator.url, tools: ['tool-fs'] })
    await mkdir(join(tools.dir, 'fresh'))
    expect(await count(() => tools.ok('write', { file_path: 'fresh/new.txt', content: 'x\n' }))).toEqual(command(1))
    expect(await count(() => tools.ok('write', { file_path: 'brand/new/deep.txt', content: 'y\n' }))).toEqual(command(1))
    expect(await readFile(join(tools.dir, 'fresh', 'new.txt'), 'utf8')).toBe('x\n')
    expect(await readFile(join(tools.dir, 'brand', 'new', 'deep.txt'), 'utf8')).toBe('y\n')
    // Someone else's file in another unseen directory: the one command refuses it, nothing replaced.
    await mkdir(join(tools.dir, 'theirs'))
    await writeFile(join(tools.dir, 'theirs', 'kept.txt'), 'theirs\n')
    const refused = await tools.call('write', { file_path: 'theirs/kept.txt', content: 'mine\n' })
    expect(refused.isError).toBe(true)
    expect(await readFile(join(tools.dir, 'theirs', 'kept.txt'), 'utf8')).toBe('theirs\n')
  })

  it('applies a patch with three commands per added, updated or deleted file, and six for a moved and updated one', async () => {
    await using tools = await stack({ provider: 'e2b', sandboxUrl: sandbox.emulator.url, tools: ['tool-fs'], toolFs: { applyPatch: true } })
    dir = tools.dir
    for (const name of ['u.txt', 'd.txt', 'm.txt']) await writeFile(join(dir, name), `${name}\n`)
    for (const name of ['u.txt', 'd.txt', 'm.txt']) await tools.call('read', { file_path: name })
    const patch = (...lines: string[]) => ({ input: ['*** Begin Patch', ...lines, '*** End Patch'].join('\n') })
    // Plan: an Update is one inspect; an Add or Delete a resolve and a stat. Publication: a write
    // (its READ and its publishing command), a remove or a move is one command each.
    expect(await count(() => tools.call('apply_patch', patch('*** Update File: u.txt', '@@', '-u.txt', '+U')))).toEqual(command(3))
    expect(await count(() => tools.call('apply_patch', patch('*** Add File: a.txt', '+a')))).toEqual(command(3))
    expect(await count(() => tools.call('apply_patch', patch('*** Delete File: d.txt')))).toEqual(command(3))
    expect(await count(() => tools.call('apply_patch', patch('*** Update File: m.txt', '*** Move to: n.txt', '@@', '-m.txt', '+N')))).toEqual(command(6))
    expect(await readFile(join(dir, 'n.txt'), 'utf8')).toBe('N\n')
  })
})

/** The most bytes whose publishing command still fits the bound, for a file at `path` (base64: 4 characters per 3 bytes). */
function largestInline(path: string): number {
  const stage = join(dir, `.dsh-stage.${'0'.repeat(32)}`, 'edge.bin')
  const empty = Buffer.byteLength(controlCommand(PUBLISH, ['create', path, stage, '', path, 'inline', '']))
  return Math.floor((INLINE_COMMAND_MAX - empty) / 4) * 3
}
