import { fsError, type FsInspection, type FsInspectOptions, type FsTargetKey } from '@deepseek-ai/dsh-fs'
import { throwIfAborted } from '@deepseek-ai/dsh-fs/kit'
import type { Sandbox } from 'e2b'
import { statusError, toFsError } from './errors'
import type { Identities } from './identities'
import { danglingInfo, parseIdentity, parseRead, parseStatLine } from './parse'
import { INSPECT } from './scripts'
import { runControl } from './shell'
import { statusOf } from './status'

/** How many times a read that overlapped a change is repeated before it gives up. */
const MAX_ATTEMPTS = 10

/**
 * `inspect` in one command (`INSPECT`): the key, the stat and, for a regular file within
 * `textUpTo`, the text of exactly the version reported. It answers what `resolve`, `stat` and
 * `readText` would, one after the other, with one round trip instead of three. `decode` is
 * `readText`'s decoding (and its memory reservation), or, for `as: 'bytes'`, the bytes as they came.
 */
export async function inspectAt(
  sandbox: Sandbox, path: string, opts: FsInspectOptions, identities: Identities, decode: (bytes: Uint8Array) => Promise<{ text: string } | { bytes: Uint8Array }>,
): Promise<FsInspection> {
  const { signal } = opts
  const bound = textBound(opts.textUpTo)
  for (let attempt = 1; ; attempt++) {
    throwIfAborted(signal, path)
    let result
    try {
      result = await runControl(sandbox, INSPECT, [path, bound], signal === undefined ? {} : { signal })
    } catch (error) {
      throw toFsError(error, path, signal)
    }
    // No identity records: the path could not even be resolved (what `resolve` would fail with).
    if (!result.output.includes('\0')) throw statusError(result, path)
    const { identity, rest } = parseIdentity(result.output, path)
    identities.learn(path, identity)
    const target = { targetKey: identity.key as FsTargetKey, displayPath: path }
    const status = statusOf(result.exitCode)
    // What `stat` reports: a link to nothing as a broken link, missing or under a file as nothing there.
    if (status === 'DANGLING') {
      const info = danglingInfo(rest, path)
      return info === undefined ? { target, info: undefined } : { target, info }
    }
    if (status === 'ABSENT' || status === 'NOT_DIRECTORY') return { target, info: undefined }
    if (result.exitCode !== 0) throw statusError(result, path)
    const lines = rest.split('\n')
    if (lines.length < 3) return { target, info: parseStatLine(lines[0]!, path) }
    const snapshot = parseRead(rest, path)
    if (snapshot.consistent) return { target, info: snapshot.info, ...await decode(snapshot.bytes) }
    if (attempt >= MAX_ATTEMPTS) throw fsError('FS_IO_ERROR', { path, reason: 'kept changing while it was read' })
  }
}

/** `textUpTo` as the script's integer argument, with the default's answers at the edges ('' = no text). */
function textBound(upTo: number | undefined): string {
  if (upTo === undefined || upTo < 0) return ''
  // NaN and Infinity bound nothing (`size > NaN` is false); bash arithmetic is 64-bit.
  return Number.isNaN(upTo) || upTo >= Number.MAX_SAFE_INTEGER ? String(Number.MAX_SAFE_INTEGER) : String(Math.floor(upTo))
}
