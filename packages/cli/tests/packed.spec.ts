import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tempDir } from './dsh-process'
import { installLine } from './install-line'

// What a user of the registry gets: every public package packed by pnpm (workspace:* rewritten to
// versions), then `npm install <every tarball>` in a fresh project, exactly as the README says: no
// overrides, no flags. The result is loaded by plain Node, by vitest (the conformance suite) and by
// the installed `dsh` bin through `npx`, as an MCP client starts it.

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const PUBLIC = readdirSync(join(ROOT, 'packages'))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(ROOT, 'packages', dir, 'package.json'), 'utf8')) }))
  .filter(({ manifest }) => manifest.private !== true)
const FS_SUBPATHS = ['kit', 'memory', 'conformance'].map((subpath) => `@deepseek-ai/dsh-fs/${subpath}`)
const ENTRIES = [...PUBLIC.map(({ manifest }) => manifest.name as string), ...FS_SUBPATHS]
const CLI = PUBLIC.find(({ dir }) => dir === 'cli')!.manifest as { version: string }

let temp: Awaited<ReturnType<typeof tempDir>>
let project: string
let install: { out: string; err: string }
let tarballs: string

/** Runs a command to completion; rejects with all its output when it fails or outlives `timeoutMs` (a hang, not a speed limit). */
function run(command: string, args: string[], cwd: string, timeoutMs: number, env: NodeJS.ProcessEnv = process.env): Promise<{ out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString('utf8') })
    child.stderr.on('data', (chunk: Buffer) => { err += chunk.toString('utf8') })
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.once('error', reject)
    child.once('close', (code, signal) => {
      clearTimeout(timer)
      if (code === 0) resolve({ out, err })
      else reject(new Error(`${command} ${args.join(' ')} exited ${code ?? signal}:\n${out}\n${err.slice(-4000)}`))
    })
  })
}

/** The environment without the npm_* variables pnpm sets for its scripts (they would steer npm). */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith('npm_')))
}

beforeAll(async () => {
  const unbuilt = PUBLIC.filter(({ dir }) => !existsSync(join(ROOT, 'packages', dir, 'lib', 'index.js')))
  if (unbuilt.length > 0) throw new Error(`packages not built (${unbuilt.map(({ dir }) => dir).join(', ')}): run pnpm build first`)
  temp = await tempDir()
  project = join(temp.dir, 'consumer')
  tarballs = join(temp.dir, 'tarballs')
  await mkdir(project)
  await Promise.all(PUBLIC.map(({ dir }) => run('pnpm', ['pack', '--pack-destination', tarballs], join(ROOT, 'packages', dir), 60_000)))
  const files = PUBLIC.map(({ manifest }) => {
    const file = readdirSync(tarballs).find((name) => name === `${manifest.name.slice(1).replace('/', '-')}-${manifest.version}.tgz`)
    if (file === undefined) throw new Error(`no tarball for ${manifest.name}`)
    return join(tarballs, file)
  })
  // The project a user starts from (`npm init -y` would add only prose fields).
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'dsh-packed-consumer', private: true }, null, 2))
  // npm 11 looped forever here while the CLI depended on @cordisjs/plugin-loader by name (cordis
  // declares an unsatisfiable optional peer on it): the kill after 150 s turns a loop into a failure.
  install = await run('npm', ['install', ...files], project, 150_000, cleanEnv())
}, 240_000)

afterAll(async () => { await temp?.[Symbol.asyncDispose]() })

type Imported = Record<string, { exports?: string[]; at?: string; error?: string }>

/** Imports each entry in a plain Node child of the project; each must load, and from a `lib/` of ours. */
async function importAll(entries: string[]): Promise<Imported> {
  await writeFile(join(project, 'import-all.mjs'), `
    const out = {}
    for (const entry of ${JSON.stringify(entries)}) {
      try { out[entry] = { exports: Object.keys(await import(entry)), at: import.meta.resolve(entry) } }
      catch (error) { out[entry] = { error: String(error?.stack ?? error) } }
    }
    console.log(JSON.stringify(out))`)
  const results = JSON.parse((await run(process.execPath, ['import-all.mjs'], project, 30_000)).out) as Imported
  for (const entry of entries) {
    expect(results[entry]?.error, entry).toBeUndefined()
    expect(results[entry]?.at, entry).toMatch(/\/node_modules\/@deepseek-ai\/[^/]+\/lib\/.*\.js$/)
  }
  return results
}

describe('the packed packages, installed from their tarballs', () => {
  it('install with a plain npm install: no override in the project, no peer conflict, no loader package', async () => {
    const manifest = JSON.parse(await readFile(join(project, 'package.json'), 'utf8'))
    expect(manifest.overrides).toBeUndefined()
    expect(Object.keys(manifest.dependencies).sort()).toEqual(PUBLIC.map(({ manifest }) => manifest.name).sort())
    expect(install.err).not.toContain('ERESOLVE')
    // The loader is bundled into the CLI: nothing named @cordisjs/plugin-loader may meet cordis' optional peer.
    expect(existsSync(join(project, 'node_modules/@cordisjs/plugin-loader'))).toBe(false)
    expect(existsSync(join(project, 'node_modules/@deepseek-ai/dsh/node_modules/@cordisjs/plugin-loader'))).toBe(false)
  })

  it('a library package alone installs from the tarballs its README names (fs-local: with dsh-fs and cordis) and loads', async () => {
    const single = join(temp.dir, 'single')
    await mkdir(single)
    await writeFile(join(single, 'package.json'), JSON.stringify({ name: 'dsh-single-consumer', private: true }, null, 2))
    const args = installLine(await readFile(join(ROOT, 'packages/fs-local/README.md'), 'utf8')).map((arg) => arg.replace('$DSH/packed', tarballs))
    await run('npm', ['install', ...args], single, 150_000, cleanEnv())
    await writeFile(join(single, 'use.mjs'), `
      import { Context } from 'cordis'
      import LocalFileSystem from '@deepseek-ai/dsh-fs-local'
      const ctx = new Context()
      await ctx.plugin(LocalFileSystem, { cwd: process.cwd() })
      const target = await ctx.fs.resolve('made.txt')
      await ctx.fs.writeText(target, 'hello\\n', { expected: { kind: 'createIfAbsent' } })
      console.log(JSON.stringify({ text: await ctx.fs.readText(target) }))`)
    const used = JSON.parse((await run(process.execPath, ['use.mjs'], single, 30_000)).out) as { text: string }
    expect(used.text).toBe('hello\n')
    expect(await readFile(join(single, 'made.txt'), 'utf8')).toBe('hello\n')
  })

  it('ship their LICENSE, README and built entries, and neither unit tests nor workspace ranges', async () => {
    const license = await readFile(join(ROOT, 'LICENSE'), 'utf8')
    for (const { manifest } of PUBLIC) {
      const installed = join(project, 'node_modules', manifest.name)
      expect(await readFile(join(installed, 'LICENSE'), 'utf8'), manifest.name).toBe(license)
      expect(existsSync(join(installed, 'README.md')), `${manifest.name} README.md`).toBe(true)
      const packed = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8'))
      expect(JSON.stringify(packed.dependencies ?? {}), manifest.name).not.toContain('workspace:')
      for (const [subpath, conditions] of Object.entries(packed.exports as Record<string, string | Record<string, string>>)) {
        for (const file of typeof conditions === 'string' ? [conditions] : Object.values(conditions)) {
          expect(existsSync(join(installed, file)), `${manifest.name} exports ${subpath} → ${file}`).toBe(true)
        }
      }
      const sources = readdirSync(join(installed, 'src'), { recursive: true }).map(String)
      expect(sources.filter((file) => file.endsWith('.test.ts')), manifest.name).toEqual([])
    }
  })

  it('import in plain Node through their default condition, every entry point but /conformance (it needs vitest)', async () => {
    const results = await importAll(ENTRIES.filter((entry) => !entry.endsWith('/conformance')))
    expect(results['@deepseek-ai/dsh-fs']!.exports).toEqual(expect.arrayContaining(['FileSystem', 'FsError', 'fsError']))
    expect(results['@deepseek-ai/dsh-fs/kit']!.exports).toEqual(expect.arrayContaining(['planWrite', 'publishGuarded', 'decodeText']))
    expect(results['@deepseek-ai/dsh-fs/memory']!.exports).toEqual(expect.arrayContaining(['MemoryFileSystem', 'MemoryVolume']))
    expect(results['@deepseek-ai/dsh-fs-local']!.exports).toContain('default')
  })

  it('serve MCP through `npx dsh start` with the default config, files rooted at the working directory', async () => {
    await writeFile(join(project, 'a.txt'), 'one\n')
    // The official MCP client, as installed with dsh-mcp, started the way docs/cli.md tells every client to.
    await writeFile(join(project, 'client.mjs'), `
      import { Client } from '@modelcontextprotocol/sdk/client/index.js'
      import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
      const transport = new StdioClientTransport({ command: 'npx', args: ['dsh', 'start'], cwd: process.cwd(), stderr: 'inherit' })
      const client = new Client({ name: 'packed-test', version: '0.0.0' })
      await client.connect(transport)
      const tools = (await client.listTools()).tools.map((tool) => tool.name).sort()
      const blind = await client.callTool({ name: 'edit', arguments: { file_path: 'a.txt', old_string: 'one', new_string: 'two' } })
      await client.callTool({ name: 'read', arguments: { file_path: 'a.txt' } })
      const edit = await client.callTool({ name: 'edit', arguments: { file_path: 'a.txt', old_string: 'one', new_string: 'two' } })
      console.log(JSON.stringify({ server: client.getServerVersion(), tools, blind: { isError: blind.isError, meta: blind._meta }, edit: { isError: edit.isError ?? false } }))
      await client.close()
    `)
    const out = await run(process.execPath, ['client.mjs'], project, 60_000, cleanEnv())
    const report = JSON.parse(out.out)
    expect(report.server).toMatchObject({ name: 'dsh', version: CLI.version })
    expect(report.tools).toEqual(expect.arrayContaining(['edit', 'read', 'str_replace_editor', 'write']))
    expect(report.blind.isError).toBe(true)
    expect(report.blind.meta['ai.deepseek.dsh/error'].code).toBe('FS_NOT_OBSERVED')
    expect(report.edit.isError).toBe(false)
    expect(await readFile(join(project, 'a.txt'), 'utf8')).toBe('two\n')
  })

  it('load a plugin the CLI does not bundle by its name from the project (fs-e2b, stopped by the missing key)', async () => {
    await writeFile(join(project, 'cordis.e2b.yml'), await readFile(join(ROOT, 'docs/examples/cordis.e2b.yml'), 'utf8'))
    const { E2B_API_KEY: _key, ...env } = cleanEnv()
    const failure = await run('npx', ['dsh', 'start', '--config', 'cordis.e2b.yml'], project, 60_000, env).then(
      () => { throw new Error('dsh start succeeded without an E2B key') },
      (error: Error) => error.message,
    )
    // Imported and configured: only its own check of the key fails (an unresolved name would say "not installed").
    expect(failure).toMatch(/entry "fs" \(@deepseek-ai\/dsh-fs-e2b\) failed to start: .*API key is required/)
  })

  // Last: it adds vitest to the project, so the tests above see the plain install alone.
  it('run the conformance test file of docs/providers.md against the installed MemoryFileSystem', async () => {
    await run('npm', ['install', 'vitest@4.1.12'], project, 150_000, cleanEnv())
    expect((await importAll(['@deepseek-ai/dsh-fs/conformance']))['@deepseek-ai/dsh-fs/conformance']!.exports).toContain('describeConformance')
    // The same file the fs package runs on its sources; here vitest resolves everything from the tarballs.
    await writeFile(join(project, 'memory.spec.ts'), await readFile(join(ROOT, 'packages/fs/tests/conformance.spec.ts'), 'utf8'))
    const { out } = await run(join(project, 'node_modules/.bin/vitest'), ['run', '--root', project, '--reporter=json', 'memory.spec.ts'], project, 90_000, cleanEnv())
    const report = JSON.parse(out.slice(out.indexOf('{')))
    expect(report.numFailedTests).toBe(0)
    expect(report.numPassedTests).toBeGreaterThan(40)
  }, 240_000)
})
