import { readdirSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { BUILT_IN } from '../src/builtins'
import { DEFAULT_CONFIG_FILE, requireBuild } from './dsh-process'

beforeAll(requireBuild)

const LIB = fileURLToPath(new URL('../lib/', import.meta.url))
const PACKAGES = fileURLToPath(new URL('../../', import.meta.url))

/** Every package specifier the built files import (static or dynamic), Node's builtins aside. */
async function bareImports(): Promise<Set<string>> {
  const found = new Set<string>()
  // `from`/`import` as keywords, not as a method (`Buffer.from("OK")` in a bundled client is no import).
  for (const file of readdirSync(LIB).filter((name) => name.endsWith('.js'))) {
    const code = await readFile(join(LIB, file), 'utf8')
    for (const [, specifier] of code.matchAll(/(?<![.\w$])(?:from|import)\s*\(?\s*"((?:@[\w.-]+\/)?[\w.:-]+(?:\/[\w./-]+)?)"/g)) {
      if (!specifier!.startsWith('.') && !specifier!.startsWith('node:')) found.add(specifier!)
    }
  }
  return found
}

describe('the CLI build', () => {
  it('serves every package of the default config from the bundle', async () => {
    const names = [...(await readFile(DEFAULT_CONFIG_FILE, 'utf8')).matchAll(/^ {2}name: '([^']+)'$/gm)].map((match) => match[1])
    expect(names.length).toBe(6)
    expect(Object.keys(BUILT_IN).sort()).toEqual([...names].sort())
  })

  it('can reach every run-time dependency of a built-in plugin: bundled, or a dependency of the CLI itself', async () => {
    // A name loaded at run time (fs-local's native xattr addon, through createRequire) cannot be
    // bundled and resolves from dsh's lib/: it must be installed for the CLI, not only for the plugin.
    const code = (await Promise.all(readdirSync(LIB).filter((name) => name.endsWith('.js')).map((name) => readFile(join(LIB, name), 'utf8')))).join('\n')
    const bundled = new Set([...code.matchAll(/^\/\/#region .*?node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)\//gm)].map((match) => match[1]))
    const own = JSON.parse(await readFile(join(LIB, '../package.json'), 'utf8')) as { dependencies: Record<string, string> }
    const unreachable: string[] = []
    for (const name of Object.keys(BUILT_IN)) {
      const manifest = JSON.parse(await readFile(join(PACKAGES, name.replace('@deepseek-ai/dsh-', '').replace('@deepseek-ai/dsh', 'cli'), 'package.json'), 'utf8')) as { dependencies?: Record<string, string> }
      for (const [dependency, range] of Object.entries(manifest.dependencies ?? {})) {
        if (dependency.startsWith('@deepseek-ai/') || bundled.has(dependency)) continue
        if (own.dependencies[dependency] !== range) unreachable.push(`${name} → ${dependency}@${range}`)
      }
    }
    expect(unreachable).toEqual([])
  })

  it('imports only cordis by name at start: the loader, zod, the MCP SDK and the built-in plugins are inside', async () => {
    // A package left outside would be read from node_modules file by file at every cold start, and
    // @cordisjs/plugin-loader by name is what made npm loop (see docs/cli.md, Installing). sharp is
    // imported by name too, but only when a read first shows an image, and import-meta-resolve only
    // when the config names a package dsh is not built with; pdf.js is resolved by name and loaded
    // on the PDF thread, only when a read first shows a PDF.
    expect([...await bareImports()].sort()).toEqual(['cordis', 'import-meta-resolve', 'sharp'])
    const code = (await Promise.all(readdirSync(LIB).filter((name) => name.endsWith('.js')).map((name) => readFile(join(LIB, name), 'utf8')))).join('\n')
    expect(code).not.toMatch(/(?:from|import)\s*"(?:sharp|pdfjs-dist[^"]*|import-meta-resolve)"/)
  })
})
