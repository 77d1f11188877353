import { mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Sandbox } from 'e2b'
import { afterAll, beforeAll } from 'vitest'
import { startEnvdEmulator, type EnvdEmulator, type EnvdEmulatorOptions } from '../src/index.js'

export interface EmulatorFixture {
  emulator: EnvdEmulator
  sandbox: Sandbox
  /** The temporary home directory (real path, so it compares equal to what envd reports). */
  root: string
}

/** One emulator per test file, on a fresh temporary root, closed (and the root removed) after it. */
export function useEmulator(options: Omit<EnvdEmulatorOptions, 'root'> = {}): EmulatorFixture {
  const fixture = {} as EmulatorFixture
  beforeAll(async () => {
    fixture.root = await realpath(await mkdtemp(join(tmpdir(), 'envd-emulator-')))
    fixture.emulator = await startEnvdEmulator({ ...options, root: fixture.root })
    fixture.sandbox = await connectSdk(fixture.emulator.url)
  })
  afterAll(async () => {
    await fixture.emulator?.close()
    if (fixture.root) await rm(fixture.root, { recursive: true, force: true })
  })
  return fixture
}

/** The real SDK in debug mode: no API call, no token, envd assumed to be the newest version. */
export function connectSdk(url: string): Promise<Sandbox> {
  return Sandbox.connect('emulated', { debug: true, sandboxUrl: url })
}

/** True while a process with this pid exists (signal 0 probes without signalling). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
