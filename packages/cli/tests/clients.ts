import { spawn } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Run } from './dsh-process'

// The real agent clients, installed where DSH_CLIENTS points (see clients.e2e.spec.ts), run
// headless by the client specs.

export const CLIENTS = process.env.DSH_CLIENTS
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

/** `codex exec` in `project` with `home` as HOME, to completion. */
export function codex(home: string, project: string, env: NodeJS.ProcessEnv = {}, prompt = 'write hello.txt'): Promise<Run> {
  return client('codex', ['exec', '--skip-git-repo-check', prompt], project, { HOME: home, CODEX_HOME: '', FAKE_KEY: 'fake', ...env })
}

/** An installed client's bin, headless, to completion. */
export function client(bin: string, args: string[], project: string, env: NodeJS.ProcessEnv): Promise<Run> {
  const began = performance.now()
  // PWD too: opencode takes its project folder from it, not from the working directory.
  const child = spawn(join(CLIENTS!, 'node_modules/.bin', bin), args, { cwd: project, env: { ...process.env, PWD: project, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk })
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk })
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000)
  return new Promise((resolve) => child.once('close', (code) => {
    clearTimeout(timer)
    resolve({ code, stdout, stderr, ms: performance.now() - began })
  }))
}

/** The model provider of the fake, placed before the tables `dsh setup` wrote. */
export async function pointAtFake(home: string, url: string): Promise<void> {
  const file = join(home, '.codex/config.toml')
  const provider = `model = "fake-model"\nmodel_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\nbase_url = "${url}"\nwire_api = "responses"\nenv_key = "FAKE_KEY"\nsupports_websockets = false\n\n`
  await writeFile(file, provider + await readFile(file, 'utf8'))
}
