import type { FsTextEncoding } from '@deepseek-ai/dsh-fs'

/**
 * What a tool family shows and changes beyond UTF-8 text, as its configuration has it. A refusal
 * of a file that is not UTF-8 text says what the tools in force can do with it, so its next step
 * works: with encodings on, a Windows-1252 file is read first, not given up on.
 */
export interface TextReach {
  /** UTF-16 and legacy encodings are read and edited (`detectEncodings`, or a `defaultEncoding`). */
  encodings: boolean
  /** Images and PDFs are shown by a read, and replaced whole by a write once shown (`readMedia`). */
  media: boolean
}

/** UTF-8 text only: the library default of both families. */
export const UTF8_ONLY: TextReach = { encodings: false, media: false }

/** The configuration keys both families share, as the reach they give. */
export function reachOf(config: { detectEncodings: boolean; defaultEncoding?: FsTextEncoding | undefined; readMedia: boolean }): TextReach {
  return { encodings: config.detectEncodings || config.defaultEncoding !== undefined, media: config.readMedia }
}
