import { FsError, fsError, type FsInfo } from '@deepseek-ai/dsh-fs'
import type { Sandbox } from 'e2b'
import { posix } from 'node:path'
import { statusError, toFsError } from './errors'
import { type Identities, identitiesOf } from './identities'
import { parseIdentity, parseStatLine } from './parse'
import { PUBLISH, STAT } from './scripts'
import { controlCommand, runControl } from './shell'
import { newStageDirName } from './staging'
import { statusOf } from './status'

export type Publication = { mode: 'create' } | { mode: 'replace'; version: string }

/**
 * The longest command line that carries the bytes itself. The whole line is one argument of the
 * `bash -c` envd starts, and Linux caps one argument at 128 KiB (MAX_ARG_STRLEN): below that, with
 * room for the script and the paths, base64 of up to ~85 KiB of content fits.
 */
export const INLINE_COMMAND_MAX = 120 * 1024

/** The longest single argument Linux accepts (MAX_ARG_STRLEN, 128 KiB with its NUL): any longer command line fails E2BIG. */
export const COMMAND_LINE_MAX = 128 * 1024 - 1

/** The cause of a refusal because the path now leads elsewhere: never a lost race, so never retried. */
export class PathMoved extends Error {
  constructor(readonly key: string) {
    super(`the path now leads to ${key}`)
  }
}

export function pathMoved(error: unknown): boolean {
  return FsError.is(error) && error.cause instanceof PathMoved
}

/** Bytes ready to publish: the publishing command's arguments, and the staging directory an upload used. */
export interface StagedPublication {
  key: string
  path: string
  args: string[]
  /** Set when the bytes were uploaded: what `discardStage` removes if publication does not happen. */
  stageDir?: string
}

/**
 * Readies `bytes` for publication at `key`, the key `path` was named for. Content whose command
 * fits `INLINE_COMMAND_MAX` travels inside the publishing command: nothing to stage, and publication
 * is one round trip. Larger content is uploaded beside the key first, in a staging directory
 * (`newStageDirName`) that listings never show: two.
 */
export async function stagePublication(
  sandbox: Sandbox, key: string, path: string, bytes: Uint8Array, publication: Publication, signal?: AbortSignal,
  inlineMax = INLINE_COMMAND_MAX,
): Promise<StagedPublication> {
  const stageDir = posix.join(posix.dirname(key), newStageDirName())
  const stage = posix.join(stageDir, posix.basename(key))
  const expected = publication.mode === 'replace' ? publication.version : ''
  const args = [publication.mode, key, stage, expected, path]
  const inline = [...args, 'inline', Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')]
  if (Buffer.byteLength(controlCommand(PUBLISH, inline)) <= inlineMax) return { key, path, args: inline }
  try {
    await sandbox.files.write(stage, exactBuffer(bytes), signal === undefined ? {} : { signal })
  } catch (error) {
    await discard(sandbox, stageDir)
    throw await explainUploadFailure(sandbox, key, path, error, signal)
  }
  return { key, path, args, stageDir }
}

/**
 * Runs the publishing command: under the directory lock it checks the guard (no-replace for a
 * create, the version for a replace) and renames, so the re-check and the publication are one step.
 * Once sent it runs to the end, so a commit is never left half done and the version it reports is
 * the one it made. What the command saw of the path is remembered.
 */
export async function commitPublication(sandbox: Sandbox, staged: StagedPublication): Promise<FsInfo> {
  return finish(await run(sandbox, staged.args, staged.path), staged.key, staged.path, identitiesOf(sandbox))
}

/** Removes an upload that was never published (best effort). */
export async function discardStage(sandbox: Sandbox, staged: StagedPublication): Promise<void> {
  if (staged.stageDir !== undefined) await discard(sandbox, staged.stageDir)
}

async function run(sandbox: Sandbox, args: string[], path: string) {
  try {
    return await runControl(sandbox, PUBLISH, args)
  } catch (error) {
    throw toFsError(error, path)
  }
}

function finish(result: Awaited<ReturnType<typeof run>>, key: string, path: string, identities: Identities): FsInfo {
  // Before the identity records there is nothing to learn (the script failed to start).
  const parsed = result.output.includes('\0') ? parseIdentity(result.output, path) : undefined
  if (parsed) identities.learn(path, parsed.identity)
  if (result.exitCode !== 0) {
    const error = statusError(result, path)
    const moved = parsed !== undefined && parsed.identity.key !== key
    if (!moved && statusOf(result.exitCode) !== 'MOVED') throw error
    throw new FsError(error.code, error.message, { path, cause: new PathMoved(parsed?.identity.key ?? key) })
  }
  return parseStatLine(parsed?.rest ?? '', path)
}

function exactBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer
}

/** Best effort: residue the publishing script never saw is reclaimed by a later publication anyway. */
async function discard(sandbox: Sandbox, stageDir: string): Promise<void> {
  await sandbox.files.remove(stageDir).catch(() => undefined)
}

/**
 * An upload fails when the target's directory cannot be made: most often a path component is a
 * file. The SDK's error class cannot tell that apart, so one stat of the directory decides; only
 * this failure path pays the extra round trip.
 */
async function explainUploadFailure(sandbox: Sandbox, key: string, path: string, error: unknown, signal?: AbortSignal): Promise<FsError> {
  const mapped = toFsError(error, path, signal)
  if (mapped.code === 'FS_ABORTED') return mapped
  try {
    const dir = posix.dirname(key)
    const result = await runControl(sandbox, STAT, [dir])
    if (result.exitCode === 0 && parseStatLine(result.output, path).type !== 'directory') {
      return fsError('FS_NOT_DIRECTORY', { path, parent: dir, cause: error })
    }
    if (result.exitCode !== 0) {
      const diagnosed = statusError(result, path)
      if (diagnosed.code === 'FS_NOT_DIRECTORY' || diagnosed.code === 'FS_PERMISSION_DENIED') return diagnosed
    }
  } catch {
    // The diagnosis is a courtesy; the upload's own error stands.
  }
  return mapped
}
