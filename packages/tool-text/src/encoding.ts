import { type FsEncodingCandidate, FsError, FS_TEXT_ENCODINGS, type FsTextDecoding, type FsTextEncoding, withTextDecoding } from '@deepseek-ai/dsh-fs'
import type { ToolDefinition, ToolExecution, ToolInputSchema, ToolOutput } from '@deepseek-ai/dsh-tools'

// Legacy encodings as the tools present them: the `encoding` argument, the configuration that
// turns detection on, the note a read adds, and the remedies of the two encoding refusals.

/** The tools' configuration of encodings (tool-fs and str_replace_editor take the same two keys). */
export interface EncodingConfig {
  /** Decide the encoding of a file that is not UTF-8 from its BOM or the detector; off, such a file is refused. */
  detectEncodings: boolean
  /** The encoding to assume when the detector cannot decide. */
  defaultEncoding?: FsTextEncoding | undefined
}

export const ENCODING_ARGUMENT = `The file's encoding, when it is neither UTF-8 nor marked by a byte order mark and the tool said it could not `
  + `tell which it is: one of ${FS_TEXT_ENCODINGS.filter((name) => name !== 'utf-8').join(', ')}. Leave it out otherwise.`

/** The decoding a call runs under: none (UTF-8 only, as before) unless configured or asked for. */
export function textDecodingOf(config: EncodingConfig, encoding: FsTextEncoding | undefined): FsTextDecoding | undefined {
  if (encoding === undefined && !config.detectEncodings && config.defaultEncoding === undefined) return undefined
  const decoding: FsTextDecoding = { detect: config.detectEncodings }
  if (encoding !== undefined) decoding.encoding = encoding
  if (config.defaultEncoding !== undefined) decoding.fallback = config.defaultEncoding
  return decoding
}

/**
 * A tool whose calls run under their `FsTextDecoding` (`encoding` argument, configuration); with
 * `names`, a successful text result ends with a note naming a legacy encoding it was decoded from.
 */
export function withEncodings<S extends ToolInputSchema>(definition: ToolDefinition<S>, config: EncodingConfig, names = false): ToolDefinition<S> {
  const execute = definition.execute.bind(definition)
  return {
    ...definition,
    async execute(input, exec: ToolExecution): Promise<ToolOutput> {
      const decoding = textDecodingOf(config, (input as { encoding?: FsTextEncoding }).encoding)
      if (decoding === undefined) return execute(input, exec)
      const output = await withTextDecoding(decoding, async () => execute(input, exec))
      if (!names || decoding.decided === undefined || typeof output !== 'string') return output
      return `${output}\n${encodingNote(decoding.decided)}`
    },
  }
}

/** What a read of a file in a legacy encoding adds: the encoding, and that changes keep it. */
export function encodingNote(encoding: FsTextEncoding): string {
  return `[The file is in ${encoding}, not UTF-8; edits and writes keep it in ${encoding} and leave every byte they do not replace as it was.]`
}

/** The remedy of an `FS_NOT_TEXT` whose encoding the detector could not decide: how to name one. */
export function undecidedRemedy(candidates: readonly FsEncodingCandidate[], tool: string): string {
  const named = candidates.length > 0 ? candidates.map((c) => c.encoding) : FS_TEXT_ENCODINGS.filter((name) => name !== 'utf-8')
  return `if you know its encoding, call the dsh \`${tool}\` tool again with encoding set to it `
    + `(${candidates.length > 0 ? 'likely' : 'supported'}: ${named.join(', ')}), or set defaultEncoding in the configuration; otherwise it is not text these tools can show`
}

/** The remedy of `FS_NOT_ENCODABLE`. */
export const UNENCODABLE_REMEDY = 'use only characters that encoding has in the new text (or an escape the file format allows), then retry'

/** The remedy for an encoding refusal, if `error` is one. */
export function encodingRemedy(error: FsError, tool: string): string | undefined {
  if (error.code === 'FS_NOT_ENCODABLE') return UNENCODABLE_REMEDY
  if (error.code === 'FS_NOT_TEXT' && error.candidates !== undefined) return undecidedRemedy(error.candidates, tool)
  return undefined
}
