import { readFileSync } from 'node:fs'
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

/** True while a process with this pid runs: it exists and is not a zombie awaiting its reaper. */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The state letter follows the parenthesised command name, which may itself hold spaces.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}
