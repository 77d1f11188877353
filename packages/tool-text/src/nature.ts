import { type FileSystem, FsError, type FsInfo, type FsTarget } from '@deepseek-ai/dsh-fs'
import { BINARY_SNIFF_BYTES, describeEntry, utf16Bom, Utf8StreamDecoder } from '@deepseek-ai/dsh-fs/kit'
import { MEDIA_NAMES, type MediaKind, mediaKindOf } from './media-kind'
import { type TextReach, UTF8_ONLY } from './reach'

/** What is at a target, as far as a tool that changes text files cares. */
export type TargetNature =
  | { kind: 'absent' }
  | { kind: 'directory' }
  /** A FIFO, socket, device or broken symbolic link (`info.special` says which, when known). */
  | { kind: 'special'; info: FsInfo }
  /** An image or PDF, by its signature: `read` shows it, and only a whole-file `write` replaces it. */
  | { kind: 'media'; media: MediaKind }
  | { kind: 'binary'; nulAt: number }
  /** Not UTF-8, where the tools read no other encoding. */
  | { kind: 'not-utf8' }
  /**
   * Text the tools read: UTF-8, or, with encodings in reach, bytes a decoding may read (a UTF-16
   * BOM, or no NUL byte near the start), decided when the file is read. `size` in bytes, when the
   * provider's stat gave it.
   */
  | { kind: 'text'; size?: number }

/**
 * Looks at a target after a refusal, to name it for what it is: the refusal of an edit of a
 * directory must not send the model to read it first. One `stat`, and for a regular file at most
 * the first 8 KiB of it (the same bytes a reader sniffs for binary data). Only failure paths call
 * this: the success path of every tool keeps its stat budget. A look that fails says nothing.
 * `reach` is what the tools read: an image is media only where they show it, and a file in a legacy
 * encoding is text only where they decode it.
 */
export async function inspectTarget(fs: FileSystem, target: FsTarget, signal?: AbortSignal, reach: TextReach = UTF8_ONLY): Promise<TargetNature | undefined> {
  try {
    const info = await fs.stat(target, signal)
    if (info === undefined) return { kind: 'absent' }
    if (info.type === 'directory') return { kind: 'directory' }
    if (info.type !== 'file') return { kind: 'special', info }
    const nature = await sniff(fs, target, signal, reach)
    return nature.kind === 'text' && info.size !== undefined ? { kind: 'text', size: info.size } : nature
  } catch (error) {
    if (FsError.is(error, 'FS_NOT_TEXT')) return { kind: 'not-utf8' }
    if (FsError.is(error)) return undefined
    throw error
  }
}

/** The first 8 KiB, judged as the tools in `reach` would read the file. */
async function sniff(fs: FileSystem, target: FsTarget, signal: AbortSignal | undefined, reach: TextReach): Promise<TargetNature> {
  const decoder = new Utf8StreamDecoder(target.displayPath)
  let seen = 0
  for await (const chunk of fs.streamBytes(target, signal)) {
    const first = seen === 0 ? startNature(chunk, reach) : undefined
    if (first !== undefined) return first
    const head = chunk.subarray(0, BINARY_SNIFF_BYTES - seen)
    const nul = head.indexOf(0)
    if (nul >= 0) return { kind: 'binary', nulAt: seen + nul }
    try {
      decoder.skip(head)
    } catch (error) {
      // Not UTF-8: text all the same where a decoding reads other encodings, and decides on the read.
      if (FsError.is(error, 'FS_NOT_TEXT')) return reach.encodings ? { kind: 'text' } : { kind: 'not-utf8' }
      throw error
    }
    seen += head.length
    if (seen >= BINARY_SNIFF_BYTES) break
  }
  return { kind: 'text' }
}

/** What a file's first bytes alone decide: an image or PDF the tools show, a UTF-16 BOM they decode. */
function startNature(chunk: Uint8Array, reach: TextReach): TargetNature | undefined {
  const media = reach.media ? mediaKindOf(chunk) : undefined
  if (media !== undefined) return { kind: 'media', media }
  return reach.encodings && utf16Bom(chunk) !== undefined ? { kind: 'text' } : undefined
}

/**
 * The refusal of a change to a text file larger than any tool changes (the providers' `maxTextBytes`):
 * said by its size before any read-first rule, since reading it first would be a call for nothing.
 */
export function tooLargeText(path: string, size: number, limit: number): string {
  const mib = (bytes: number) => bytes < 1024 ? `${bytes} bytes` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`
  return `${path} is ${mib(size)}, above the ${mib(limit)} limit for a text file the tools change, so no edit or write of it can succeed; `
    + 'it can still be read in windows, and a change to it must be made another way'
}

/** "<path> is a directory", "<path> is a broken symbolic link (…)", "<path> is a binary file (…)". */
export function natureSentence(path: string, nature: Exclude<TargetNature, { kind: 'absent' | 'text' }>): string {
  switch (nature.kind) {
    case 'directory': return `${path} is a directory, not a file`
    case 'special': return `${path} is ${describeEntry(nature.info)}, not a regular file`
    case 'media': return `${path} is ${MEDIA_NAMES[nature.media]}`
    case 'binary': return `${path} is a binary file (NUL byte at offset ${nature.nulAt}), not text`
    case 'not-utf8': return `${path} is not UTF-8 text`
  }
}

/**
 * Whether the last part of `target`'s path is a symbolic link (which `stat` follows, so the
 * nature above calls it by what it points to). One walk of its directory for that one name, on a
 * failure path only: a file swapped for a link since the read is then named as such, where "has
 * not been read" would be false. A look that fails says no.
 */
export async function isSymbolicLink(fs: FileSystem, target: FsTarget, signal?: AbortSignal): Promise<boolean> {
  const path = target.displayPath
  const slash = path.lastIndexOf('/')
  if (slash < 0 || slash === path.length - 1) return false
  try {
    const parent = await fs.resolve(slash === 0 ? '/' : path.slice(0, slash), signal === undefined ? {} : { signal })
    const name = path.slice(slash + 1).replace(/[\\*?[\]{}()!+@]/g, '\\$&')
    const walked = await fs.walk(parent, { glob: [name], maxDepth: 1, includeIgnored: true, limit: 1 }, signal)
    return walked.entries[0]?.type === 'symlink'
  } catch (error) {
    if (FsError.is(error) && !FsError.is(error, 'FS_ABORTED')) return false
    throw error
  }
}
