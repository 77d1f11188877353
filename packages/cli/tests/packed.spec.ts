import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tempDir } from './dsh-process'

// What a user of the registry gets: every public package packed by pnpm (workspace:* rewritten to
// versions), installed by npm into a project with no workspace links, then loaded by plain Node,
// by vitest (the conformance suite) and by the installed `dsh` bin through the Cordis loader.

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const PUBLIC = readdirSync(join(ROOT, 'packages'))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(ROOT, 'packages', dir, 'package.json'), 'utf8')) }))
  .filter(({ manifest }) => manifest.private !== true)
const ENTRIES = [...PUBLIC.map(({ manifest }) => manifest.name as string), '@deepseek-ai/dsh-fs/conformance']
// cordis 4.0.0-rc.10 declares an optional peer on a loader version that was never published; npm
// fails (ETARGET) unless the consumer pins the loader the CLI uses. docs/cli.md tells users the same.
const LOADER_OVERRIDE = { '@cordisjs/plugin-loader': '1.0.0-beta.5' }

let temp: Awaited<ReturnType<typeof tempDir>>
let project: string

/** Runs a command to completion and gives its stdout; rejects with all its output when it fails or outlives `timeoutMs`. */
function run(command: string, args: string[], cwd: string, timeoutMs: number, env: NodeJS.ProcessEnv = process.env): Promise<string> {
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
      if (code === 0) resolve(out)
      else reject(new Error(`${command} ${args.join(' ')} exited ${code ?? signal}:\n${out}\n${err}`))
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
  const tarballs = join(temp.dir, 'tarballs')
  await mkdir(project)
  await Promise.all(PUBLIC.map(({ dir }) => run('pnpm', ['pack', '--pack-destination', tarballs], join(ROOT, 'packages', dir), 60_000)))
  const files = Object.fromEntries(PUBLIC.map(({ manifest }) => {
    const file = readdirSync(tarballs).find((name) => name === `${manifest.name.slice(1).replace('/', '-')}-${manifest.version}.tgz`)
    if (file === undefined) throw new Error(`no tarball for ${manifest.name}`)
    return [manifest.name, `file:${join(tarballs, file)}`]
  }))
  // Dependencies between our packages name registry versions (0.1.0): point them at the tarballs too.
  await writeFile(join(project, 'package.json'), JSON.stringify({
    name: 'dsh-packed-consumer',
    private: true,
    type: 'module',
    dependencies: { ...files, vitest: '4.1.12' },
    overrides: { ...files, ...LOADER_OVERRIDE },
  }, null, 2))
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], project, 150_000, cleanEnv())
}, 240_000)

afterAll(async () => { await temp?.[Symbol.asyncDispose]() })

describe('the packed packages, installed from their tarballs', () => {
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

  it('import in plain Node through their default condition, every entry point', async () => {
    const script = `
      const out = {}
      for (const entry of ${JSON.stringify(ENTRIES)}) {
        try { out[entry] = { exports: Object.keys(await import(entry)), at: import.meta.resolve(entry) } }
        catch (error) { out[entry] = { error: String(error?.stack ?? error) } }
      }
      console.log(JSON.stringify(out))`
    await writeFile(join(project, 'import-all.mjs'), script)
    const results = JSON.parse(await run(process.execPath, ['import-all.mjs'], project, 30_000)) as Record<string, { exports?: string[]; at?: string; error?: string }>
    for (const entry of ENTRIES) {
      expect(results[entry]?.error, entry).toBeUndefined()
      expect(results[entry]?.at, entry).toMatch(/\/node_modules\/@deepseek-ai\/[^/]+\/lib\/.*\.js$/)
    }
    expect(results['@deepseek-ai/dsh-fs']!.exports).toEqual(expect.arrayContaining(['FileSystem', 'FsError', 'MemoryFileSystem']))
    expect(results['@deepseek-ai/dsh-fs/conformance']!.exports).toContain('describeConformance')
    expect(results['@deepseek-ai/dsh-fs-local']!.exports).toContain('default')
  })

  it('run the conformance test file of docs/providers.md against the installed MemoryFileSystem', async () => {
    // The same file the fs package runs on its sources; here vitest resolves everything from the tarballs.
    await writeFile(join(project, 'memory.spec.ts'), await readFile(join(ROOT, 'packages/fs/tests/conformance.spec.ts'), 'utf8'))
    const out = await run(join(project, 'node_modules/.bin/vitest'), ['run', '--root', project, '--reporter=json', 'memory.spec.ts'], project, 90_000, cleanEnv())
    const report = JSON.parse(out.slice(out.indexOf('{')))
    expect(report.numFailedTests).toBe(0)
    expect(report.numPassedTests).toBeGreaterThan(40)
  })

  it('boot through the installed dsh bin on a cordis.yml naming the installed packages, serving MCP over stdio', async () => {
    const files = join(project, 'files')
    await mkdir(files)
    await writeFile(join(files, 'a.txt'), 'one\n')
    await writeFile(join(project, 'cordis.yml'), [
      '- id: fs', "  name: '@deepseek-ai/dsh-fs-local'", '  config:', `    root: ${JSON.stringify(files)}`, `    cwd: ${JSON.stringify(files)}`,
      '- id: policy', "  name: '@deepseek-ai/dsh-fs-policy'",
      '- id: tools', "  name: '@deepseek-ai/dsh-tools'",
      '- id: tool-fs', "  name: '@deepseek-ai/dsh-tool-fs'",
      '- id: editor', "  name: '@deepseek-ai/dsh-tool-str-replace-editor'",
      '- id: mcp', "  name: '@deepseek-ai/dsh-mcp'", '  config:', '    transport: stdio',
      '',
    ].join('\n'))
    // The official MCP client, as installed with dsh-mcp: initialize, tools/list, then a guarded edit.
    await writeFile(join(project, 'client.mjs'), `
      import { Client } from '@modelcontextprotocol/sdk/client/index.js'
      import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
      const transport = new StdioClientTransport({ command: 'node_modules/.bin/dsh', args: ['start', '--config', 'cordis.yml'], cwd: process.cwd(), stderr: 'inherit' })
      const client = new Client({ name: 'packed-test', version: '0.0.0' })
      await client.connect(transport)
      const text = (result) => result.content.map((part) => part.text).join('\\n')
      const tools = (await client.listTools()).tools.map((tool) => tool.name).sort()
      const blind = await client.callTool({ name: 'edit', arguments: { file_path: 'a.txt', old_string: 'one', new_string: 'two' } })
      await client.callTool({ name: 'read', arguments: { file_path: 'a.txt' } })
      const edit = await client.callTool({ name: 'edit', arguments: { file_path: 'a.txt', old_string: 'one', new_string: 'two' } })
      console.log(JSON.stringify({ server: client.getServerVersion(), tools, blind: { isError: blind.isError, text: text(blind) }, edit: { isError: edit.isError ?? false } }))
      await client.close()
    `)
    const out = await run(process.execPath, ['client.mjs'], project, 60_000)
    const report = JSON.parse(out)
    expect(report.server).toMatchObject({ name: 'dsh', version: '0.1.0' })
    expect(report.tools).toEqual(expect.arrayContaining(['edit', 'read', 'str_replace_editor', 'write']))
    expect(report.blind.isError).toBe(true)
    expect(report.edit.isError).toBe(false)
    expect(await readFile(join(files, 'a.txt'), 'utf8')).toBe('two\n')
  })
})
