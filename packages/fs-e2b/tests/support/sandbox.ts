import { type EnvdEmulator, startEnvdEmulator } from '@deepseek-ai/dsh-envd-emulator'
import type { ExternalWorld } from '@deepseek-ai/dsh-fs/conformance'
import { Context } from 'cordis'
import { execFile } from 'node:child_process'
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll } from 'vitest'
import E2BFileSystem, { type E2BFileSystemConfig } from '../../src'
import { type PublishHookRelay, startPublishHookRelay } from './publish-hook'

export interface EmulatedSandbox {
  emulator: EnvdEmulator
  /** The relay in front of the emulator (its URL is what providers connect to). */
  relay: PublishHookRelay
  /** The sandbox home = the emulator's root (a real path). */
  root: string
}

/** One emulator (behind a publish-hook relay) per test file, on a fresh temporary root. */
export function useEmulatedSandbox(): EmulatedSandbox {
  const fixture = {} as EmulatedSandbox
  beforeAll(async () => {
    fixture.root = await realpath(await mkdtemp(join(tmpdir(), 'dsh-fs-e2b-')))
    fixture.emulator = await startEnvdEmulator({ root: fixture.root })
    fixture.relay = await startPublishHookRelay(fixture.emulator.url)
  })
  afterAll(async () => {
    await fixture.relay?.close()
    await fixture.emulator?.close()
    if (fixture.root) await rm(fixture.root, { recursive: true, force: true })
  })
  return fixture
}

export interface Provider {
  fs: E2BFileSystem
  dispose(): Promise<void>
}

/** An `E2BFileSystem` loaded as a Cordis plugin, connected through the real SDK in debug mode. */
export async function startProvider(url: string, config: Partial<E2BFileSystemConfig> = {}): Promise<Provider> {
  const ctx = new Context()
  const fiber = ctx.plugin(E2BFileSystem, { sandboxId: 'emulated', debug: true, sandboxUrl: url, ...config } as E2BFileSystemConfig)
  await fiber
  return { fs: ctx.get('fs') as E2BFileSystem, dispose: async () => void (await fiber.dispose()) }
}

/** The outside world of the conformance suite: node:fs straight on the emulator's host directory. */
export function hostWorld(dir: string): Required<ExternalWorld> {
  const at = (name: string) => join(dir, name)
  return {
    async write(name, data) {
      await mkdir(dirname(at(name)), { recursive: true })
      await writeFile(at(name), data)
    },
    read: (name) => readFile(at(name)).then((buffer) => new Uint8Array(buffer), () => undefined),
    remove: (name) => rm(at(name), { recursive: true, force: true }),
    mkdir: (name) => mkdir(at(name), { recursive: true }).then(() => undefined),
    async rewriteKeepingMtime(name, data) {
      const before = await stat(at(name))
      await writeFile(at(name), data)
      await utimes(at(name), before.atime, before.mtime)
    },
    async symlink(target, name) {
      await mkdir(dirname(at(name)), { recursive: true })
      await symlink(target, at(name))
    },
    async mkfifo(name) {
      await mkdir(dirname(at(name)), { recursive: true })
      await promisify(execFile)('mkfifo', [at(name)])
    },
    makeReadOnly: async (name) => chmod(at(name), (await stat(at(name))).mode & 0o7555),
  }
}

let counter = 0

/** A fresh directory under the sandbox home for one test. */
export async function freshDir(root: string): Promise<string> {
  const dir = join(root, `case-${++counter}`)
  await mkdir(dir)
  return dir
}
