import { FsError, type FsInfo, throwIfAborted } from '@deepseek-ai/dsh-fs'
import type { Sandbox } from 'e2b'
import { randomBytes } from 'node:crypto'
import { posix } from 'node:path'
import { statusError, toFsError } from './errors'
import { parseStatLine } from './parse'
import { PUBLISH, STAT } from './scripts'
import { runControl } from './shell'

export type Publication = { mode: 'create' } | { mode: 'replace'; version: string }

/**
 * Uploads `bytes` next to `key` and publishes them there: two round trips, one upload and one
 * command. The upload is the last step that honours `signal`; the publishing command, once sent,
 * runs to the end, so a commit is never left half done and the version it reports is the one it made.
 */
export async function uploadAndPublish(
  sandbox: Sandbox, key: string, path: string, bytes: Uint8Array, publication: Publication, signal?: AbortSignal,
): Promise<FsInfo> {
  const stageDir = posix.join(posix.dirname(key), `.dsh-stage-${randomBytes(8).toString('hex')}`)
  const stage = posix.join(stageDir, posix.basename(key))
  try {
    await sandbox.files.write(stage, exactBuffer(bytes), signal === undefined ? {} : { signal })
  } catch (error) {
    await discard(sandbox, stageDir)
    throw await explainUploadFailure(sandbox, key, path, error, signal)
  }
  if (signal?.aborted) {
    await discard(sandbox, stageDir)
    throwIfAborted(signal, path)
  }
  const expected = publication.mode === 'replace' ? publication.version : ''
  let result
  try {
    result = await runControl(sandbox, PUBLISH, [publication.mode, key, stage, expected])
  } catch (error) {
    throw toFsError(error, path)
  }
  if (result.exitCode !== 0) throw statusError(result, path)
  return parseStatLine(result.output, path)
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
      return new FsError('FS_NOT_DIRECTORY', `${path} cannot be created: ${dir} is not a directory`, { path, cause: error })
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
