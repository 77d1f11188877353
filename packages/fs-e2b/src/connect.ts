import { fsError } from '@deepseek-ai/dsh-fs'
import { Sandbox, type SandboxOpts } from 'e2b'
import { statusError, toFsError } from './errors'
import { PROBE } from './scripts'
import { runControl } from './shell'

export interface SandboxSource {
  /** A sandbox the caller already holds; never killed by the provider. */
  sandbox?: Sandbox | undefined
  /** Connect to this running sandbox; never killed by the provider. */
  sandboxId?: string | undefined
  /** Create a sandbox from this template; the provider owns it and kills it on dispose. */
  template?: string | undefined
  apiKey?: string | undefined
  debug?: boolean | undefined
  sandboxUrl?: string | undefined
  domain?: string | undefined
  requestTimeoutMs?: number | undefined
}

export interface OpenedSandbox {
  sandbox: Sandbox
  /** True only when this call created the sandbox, so only then is it ours to kill. */
  owned: boolean
}

/** Connects to or creates the sandbox a configuration names. */
export async function openSandbox(source: SandboxSource): Promise<OpenedSandbox> {
  if (source.sandbox) return { sandbox: source.sandbox, owned: false }
  const opts: SandboxOpts = {}
  const apiKey = source.apiKey ?? process.env.E2B_API_KEY
  if (apiKey !== undefined) opts.apiKey = apiKey
  if (source.debug !== undefined) opts.debug = source.debug
  if (source.sandboxUrl !== undefined) opts.sandboxUrl = source.sandboxUrl
  if (source.domain !== undefined) opts.domain = source.domain
  if (source.requestTimeoutMs !== undefined) opts.requestTimeoutMs = source.requestTimeoutMs
  const what = source.sandboxId !== undefined ? `sandbox ${source.sandboxId}` : `a sandbox from template ${source.template}`
  try {
    if (source.sandboxId !== undefined) return { sandbox: await Sandbox.connect(source.sandboxId, opts), owned: false }
    return { sandbox: await Sandbox.create(source.template ?? 'base', opts), owned: true }
  } catch (error) {
    throw toFsError(error, what)
  }
}

/**
 * One command before the service goes live: checks that the tools the scripts rely on exist, and
 * learns the directory commands start in, which is the sandbox user's home.
 */
export async function probeSandbox(sandbox: Sandbox): Promise<{ home: string }> {
  let result
  try {
    result = await runControl(sandbox, PROBE, [])
  } catch (error) {
    throw toFsError(error, 'the sandbox')
  }
  if (result.exitCode !== 0) throw statusError(result, 'the sandbox')
  const home = result.output.trim()
  if (!home.startsWith('/')) throw fsError('FS_IO_ERROR', { reason: `the sandbox reported no home directory (${JSON.stringify(home)})` })
  return { home }
}
