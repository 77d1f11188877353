import { type FileSystem, FsError, type FsTarget, type FsVersion } from '@deepseek-ai/dsh-fs'
import type { ToolExecution } from '@deepseek-ai/dsh-tools'
import { readOptions } from './encoding'

/** The version of a target a stale refusal can show, or why it shows none. */
export type CurrentVersion =
  | { kind: 'absent' }
  | { kind: 'present'; version: FsVersion; text: string }
  /** Not a regular file now, changing while we looked, or unreadable: the refusal stays as it was. */
  | { kind: 'unsettled' }

/**
 * Reads the version that replaced the one a refused mutation was based on: `stat`, `readText`,
 * `stat` again. Only when both stats name the same version is the text known to be that version's,
 * so that an observation of it is exact; a writer still at work makes this `unsettled`. The text is
 * read with the call's decoding, as the call itself read it.
 */
export async function readCurrentVersion(fs: FileSystem, target: FsTarget, exec: Pick<ToolExecution, 'signal'>): Promise<CurrentVersion> {
  const { signal } = exec
  try {
    const before = await fs.stat(target, signal)
    if (before === undefined) return { kind: 'absent' }
    if (before.type !== 'file') return { kind: 'unsettled' }
    const text = await fs.readText(target, readOptions(exec))
    const after = await fs.stat(target, signal)
    if (after === undefined || after.version !== before.version) return { kind: 'unsettled' }
    return { kind: 'present', version: before.version, text }
  } catch (error) {
    if (FsError.is(error, 'FS_ABORTED')) throw error
    if (FsError.is(error)) return { kind: 'unsettled' }
    throw error
  }
}
