import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const DSH_BIN = fileURLToPath(new URL('../bin/dsh.js', import.meta.url))
export const DEFAULT_CONFIG_FILE = fileURLToPath(new URL('../cordis.yml', import.meta.url))
const PACKAGES = fileURLToPath(new URL('../../', import.meta.url))
const LOADED = ['fs', 'fs-local', 'fs-policy', 'tools', 'tool-text', 'tool-fs', 'tool-str-replace-editor', 'mcp', 'cli']

/** A spawned `dsh` (and the loader, even in process) loads built `lib/`: say so plainly when missing. */
export function requireBuild(): void {
  const missing = LOADED.filter((dir) => !existsSync(join(PACKAGES, dir, 'lib', 'index.js')))
  if (missing.length > 0) throw new Error(`packages not built (${missing.join(', ')}): run pnpm build before these tests`)
}

export async function tempDir(): Promise<{ dir: string; [Symbol.asyncDispose](): Promise<void> }> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-cli-')))
  return { dir, [Symbol.asyncDispose]: () => rm(dir, { recursive: true, force: true }) }
}

export interface Run {
  code: number | null
  stdout: string
  stderr: string
  ms: number
}

/** Runs `dsh ...args` to completion with stdin closed, killing it after `timeoutMs` (a hang fails the test). */
export function runDsh(args: string[], cwd: string, timeoutMs = 30_000, env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  return runNode([DSH_BIN, ...args], cwd, timeoutMs, env)
}

/** A plain `node` child: outside vitest, whose workers resolve packages to their TypeScript sources. */
export function runNode(args: string[], cwd: string, timeoutMs = 30_000, env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  const began = performance.now()
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
  return collect(child, began, timeoutMs)
}

/** `dsh start` with stdin held open, resolved once its banner is out; killed after `lifetimeMs` (a hang fails the test). */
export async function startDsh(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env, lifetimeMs = 60_000): Promise<{ child: ChildProcess; stderr: () => string; done: Promise<Run> }> {
  const began = performance.now()
  const child = spawn(process.execPath, [DSH_BIN, 'start', ...args], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] })
  const done = collect(child, began, lifetimeMs)
  let stderr = ''
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8')
      if (/\n {2}transport {2}.*\n/.test(stderr)) resolve()
    })
    void done.then((run) => reject(new Error(`dsh start exited (${run.code}) before its banner:\n${run.stderr}`)))
  })
  return { child, stderr: () => stderr, done }
}

function collect(child: ChildProcess, began: number, timeoutMs: number): Promise<Run> {
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (chunk: Buffer) => { stdout += chunk.toString('utf8') })
  child.stderr!.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8') })
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
  return new Promise((resolve) => {
    child.once('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr, ms: performance.now() - began })
    })
  })
}
