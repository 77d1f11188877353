import type { ConformanceFixture, ExternalWorld } from '@deepseek-ai/dsh-fs/conformance'
import { Context } from 'cordis'
import { execFile } from 'node:child_process'
import { chmod, mkdir, mkdtemp, open, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, expect } from 'vitest'
import { LocalFileSystem, type LocalFileSystemConfig } from '../src'
import { beforeEachPublish } from './hooks'
import { tryHold } from '../src/kernel-lock'
import { stagedNameOf } from '../src/staging'

export const run = promisify(execFile)

const made: string[] = []

/** A fresh real temp directory, removed after the spec file that made it has run. */
export async function tempDir(prefix = 'dsh-fs-local-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  made.push(dir)
  return dir
}

// Registered when a spec file imports this module, so it runs after that file's tests.
afterAll(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
})

export interface LocalFixture extends ConformanceFixture {
  fs: LocalFileSystem
  dir: string
  external: Required<ExternalWorld>
}

/**
 * A `LocalFileSystem` on a fresh temp directory, registered on a real Cordis context. The
 * publication hook reaches its I/O core through `src/instrument.ts`, which the package does not export.
 */
export async function localFixture(config: Omit<LocalFileSystemConfig, 'cwd'> = {}, rootAtDir = false): Promise<LocalFixture> {
  const dir = await tempDir()
  const hooks: (() => Promise<void>)[] = []
  const options = LocalFileSystem.Config.parse({ ...config, cwd: dir, ...(rootAtDir ? { root: dir } : {}) })
  const ctx = new Context()
  const fs = new LocalFileSystem(ctx, options)
  beforeEachPublish(fs.disk, async () => { for (const hook of hooks.splice(0)) await hook() })
  const at = (name: string) => join(dir, name)
  return {
    fs,
    dir,
    path: at,
    beforeNextPublish: (hook) => void hooks.push(hook),
    external: {
      async write(name, data) {
        await mkdir(dirname(at(name)), { recursive: true })
        await writeFile(at(name), data)
      },
      async read(name) {
        return readFile(at(name)).then((buffer) => new Uint8Array(buffer), () => undefined)
      },
      remove: (name) => rm(at(name), { recursive: true, force: true }),
      mkdir: async (name) => void (await mkdir(at(name), { recursive: true })),
      async rewriteKeepingMtime(name, data) {
        const before = await stat(at(name))
        await writeFile(at(name), data)
        await utimes(at(name), before.atime, before.mtime)
      },
      symlink: async (target, name) => {
        await mkdir(dirname(at(name)), { recursive: true })
        await symlink(target, at(name))
      },
      mkfifo: async (name) => void (await run('mkfifo', [at(name)])),
      makeReadOnly: async (name) => chmod(at(name), (await stat(at(name))).mode & 0o7555),
    },
    dispose: () => rm(dir, { recursive: true, force: true }),
  }
}

/**
 * Staging residue of the exact shape fs-local makes, whose writer is gone: nobody holds a lock on
 * it, so a sweep may remove it.
 */
export async function deadStaging(dir: string): Promise<string> {
  const name = stagedNameOf(`dead-${made.length}-${Math.random()}`)
  await writeFile(join(dir, name), 'staged by a writer that died', { mode: 0o600 })
  return name
}

/** A staged file whose writer is alive: this test holds its lock until `release`. */
export async function liveStaging(dir: string): Promise<{ name: string; release: () => Promise<void> }> {
  const name = stagedNameOf(`live-${Math.random()}`)
  const handle = await open(join(dir, name), 'wx', 0o600)
  await handle.write('staged by a live writer')
  expect(tryHold(handle.fd)).toBe('held')
  return { name, release: () => handle.close() }
}
