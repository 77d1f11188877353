import { fsError } from './errors'
import { checkMoveDestination, checkRemoveGuard } from './guards'
import type { FileSystem } from './service'
import type { FsRenameOptions, FsRenameOutcome, FsTarget } from './types'
import { hasBom } from './utf8'

/**
 * A `rename` composed from a provider's `remove` and its guarded `writeText`, for a provider
 * that can remove but has no move of its own: `rename(source, destination, opts) {
 * return composedRename(this, source, destination, opts) }`.
 *
 * The text is read between two stats of one version, published at the destination with
 * `createIfAbsent` (the no-replace check is the provider's own), then the source is removed at
 * that version. If the removal is refused (the source changed meanwhile), the copy is removed
 * again, at the version it was created with. What it cannot do, and a native `rename` does: move
 * a file that is not text, keep the file's mode, or be one step (a crash between the create and
 * the removal leaves both files, nothing lost).
 */
export async function composedRename(
  fs: FileSystem, source: FsTarget, destination: FsTarget, { expected, signal }: FsRenameOptions = {},
): Promise<FsRenameOutcome> {
  const path = source.displayPath
  checkMoveDestination(undefined, source.targetKey === destination.targetKey, destination.displayPath)
  if (!fs.capabilities.remove || fs.remove === undefined) throw fsError('FS_IO_ERROR', { path, reason: 'cannot be moved: the provider has no remove to compose a move from' })
  const seen = await fs.stat(source, signal)
  checkRemoveGuard(seen, expected, path)
  // The BOM, which the text does not show, travels as the text's first character (kept by a create).
  const bom = await startsWithBom(fs, source, signal)
  const text = await fs.readText(source, signal)
  const still = await fs.stat(source, signal)
  if (still?.version !== seen!.version) throw fsError('FS_STALE_VERSION', { path })
  const created = await fs.writeText(destination, bom ? `\ufeff${text}` : text, { expected: { kind: 'createIfAbsent' }, signal })
  try {
    await fs.remove(source, { expected: { version: seen!.version }, signal })
  } catch (error) {
    await fs.remove(destination, { expected: { version: created.version } }).catch(() => {})
    throw error
  }
  return { version: created.version }
}

async function startsWithBom(fs: FileSystem, target: FsTarget, signal?: AbortSignal): Promise<boolean> {
  const head: number[] = []
  for await (const chunk of fs.streamBytes(target, signal)) {
    for (const byte of chunk) {
      head.push(byte)
      if (head.length === 3) break
    }
    if (head.length >= 3) break
  }
  return hasBom(Uint8Array.from(head))
}
