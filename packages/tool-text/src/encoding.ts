import {
  type FileSystem, type FsEncodingCandidate, FsError, type FsObservation, type FsReadOptions, FS_TEXT_ENCODINGS, type FsTarget, type FsTextDecoding, type FsTextEncoding,
} from '@deepseek-ai/dsh-fs'
import { BINARY_SNIFF_BYTES, utf16Bom } from '@deepseek-ai/dsh-fs/kit'
import type { Context } from 'cordis'
import { defineTool, isRefusal, type ToolDefinition, type ToolExecution, type ToolInputSchema, type ToolOutput, type ToolRefusal } from '@deepseek-ai/dsh-tools'

// Legacy encodings as the tools present them: the `encoding` argument, the configuration that
// turns detection on, the note a read adds, and the remedies of the two encoding refusals.

/** The tools' configuration of encodings (tool-fs and str_replace_editor take the same two keys). */
export interface EncodingConfig {
  /** Decide the encoding of a file that is not UTF-8 from its BOM or the detector; off, such a file is refused. */
  detectEncodings: boolean
  /** The encoding to assume when the detector cannot decide. */
  defaultEncoding?: FsTextEncoding | undefined
}

/**
 * The encodings worth naming in the `encoding` argument: every one the contract reads but UTF-8 and
 * UTF-16. UTF-16 is read only after its byte order mark, which needs no argument, so naming it for a
 * file without one fails again: a text that offered it would send the model round in a loop.
 */
export const SUPPORTED_ENCODINGS: readonly FsTextEncoding[] = FS_TEXT_ENCODINGS.filter((name) => name !== 'utf-8' && !name.startsWith('utf-16'))

export const ENCODING_ARGUMENT = `The file's encoding, when it is neither UTF-8 nor marked by a byte order mark and the tool said it could not `
  + `tell which it is: one of ${SUPPORTED_ENCODINGS.join(', ')}. Leave it out otherwise.`

/** The decoding a call runs under: none (UTF-8 only, as before) unless configured or asked for. */
export function textDecodingOf(config: EncodingConfig, encoding: FsTextEncoding | undefined): FsTextDecoding | undefined {
  if (encoding === undefined && !config.detectEncodings && config.defaultEncoding === undefined) return undefined
  const decoding: FsTextDecoding = { detect: config.detectEncodings }
  if (encoding !== undefined) decoding.encoding = encoding
  if (config.defaultEncoding !== undefined) decoding.fallback = config.defaultEncoding
  return decoding
}

/** A call's `ToolExecution` with the text decoding `withEncodings` gave it. */
interface DecodingExecution extends ToolExecution {
  decoding?: FsTextDecoding
}

/**
 * The text decoding of a call, to pass as `decoding` to each fs call of it that reads, edits or
 * writes text (none: UTF-8 only). `withEncodings` puts it on the call's own `exec`, whose identity
 * the policy keys the call by; a tool reads it here and never makes one itself.
 */
export function decodingOf(exec: Pick<ToolExecution, 'signal'>): FsTextDecoding | undefined {
  return (exec as DecodingExecution).decoding
}

/** The options of a text read (`readText`) of a call: its signal, and its decoding when it has one. */
export function readOptions(exec: Pick<ToolExecution, 'signal'>): FsReadOptions {
  return { signal: exec.signal, decoding: decodingOf(exec) }
}

/**
 * Records what a call learned of `target` (`fs/observed`, the call's `exec` as the actor). Lines a
 * call read in a legacy encoding were counted in it: what was seen names that encoding (`decided`),
 * so that the policy never adds them to lines counted in another.
 */
export function observe(ctx: Context, target: FsTarget, observation: FsObservation, exec: ToolExecution): void {
  const encoding = decodingOf(exec)?.decided
  const stamped = encoding === undefined || observation.kind !== 'present' || observation.seen === undefined
    ? observation
    : { ...observation, seen: { ...observation.seen, encoding } }
  ctx.emit('fs/observed', target, stamped, exec)
}

/** How a tool family hands its `encoding` argument (a zod field: this package has no zod) and picks the calls whose result names the encoding. */
export interface EncodingHooks<S extends ToolInputSchema> {
  argument: ToolInputSchema['shape'][string]
  names?: (input: Parameters<ToolDefinition<S>['execute']>[0]) => boolean
}

/**
 * A tool whose calls carry their `FsTextDecoding` (`decodingOf`). With encodings off in `config` it is
 * `definition` itself: schema and behaviour as before. On, its schema takes the `encoding`
 * argument, a successful text result of a call `names` picks ends with a note naming the legacy
 * encoding it was decoded from, and an encoding refusal thrown by the tool gets its remedy. The
 * note is added in the render step, after the tool's own: the call's data carries the encoding
 * decided to it (a refusal value passes through as it is).
 */
export function withEncodings<S extends ToolInputSchema>(definition: ToolDefinition<S>, config: EncodingConfig, hooks: EncodingHooks<S>): ToolDefinition<S> {
  if (!config.detectEncodings && config.defaultEncoding === undefined) return definition
  const execute = definition.execute.bind(definition)
  const render = (data: unknown, input: Parameters<ToolDefinition<S>['execute']>[0]): ToolOutput =>
    definition.render === undefined ? data as ToolOutput : definition.render(data as ToolOutput, input)
  return defineTool<S, Decoded | ToolRefusal>({
    ...definition,
    inputSchema: definition.inputSchema.extend({ encoding: hooks.argument }) as unknown as S,
    async execute(input, exec: ToolExecution): Promise<Decoded | ToolRefusal> {
      const decoding = textDecodingOf(config, (input as { encoding?: FsTextEncoding }).encoding)!
      // On the call's own `exec`, not a copy: the policy keys the call by that object.
      const call: DecodingExecution = exec
      call.decoding = decoding
      let data: ToolOutput
      try {
        data = await execute(input, call)
      } catch (error) {
        throw FsError.is(error) ? withEncodingRemedy(error, definition.name) : error
      }
      if (isRefusal(data)) return data
      return { data, ...(hooks.names?.(input) === true && decoding.decided !== undefined ? { decided: decoding.decided } : {}) }
    },
    render(reply, input): ToolOutput {
      if (isRefusal(reply)) return render(reply, input)
      const output = render(reply.data, input)
      return reply.decided === undefined || typeof output !== 'string' ? output : `${output}\n${encodingNote(reply.decided)}`
    },
  })
}

/** What a call under `withEncodings` returned, and the legacy encoding its result names. */
interface Decoded {
  data: unknown
  decided?: FsTextEncoding
}

/** An encoding refusal with its remedy after the provider's account; any other error as it is. */
function withEncodingRemedy(error: FsError, tool: string): FsError {
  const remedy = encodingRemedy(error, tool)
  if (remedy === undefined || error.message.endsWith(remedy)) return error
  return new FsError(error.code, `${error.message.replace(/[.\s]+$/, '')}; ${remedy}`, { cause: error, ...(error.path === undefined ? {} : { path: error.path }) })
}

/**
 * The whole text of a file whose streamed bytes were not UTF-8 (`notUtf8`), decoded under the
 * call's `FsTextDecoding`: how a windowed reader (`read` of a large file, `view`) reaches a legacy
 * encoding. The refusal stands for a call without a decoding, for a binary file (a NUL byte in its
 * first chunk and no UTF-16 BOM: never read whole for nothing) and for anything still not text.
 */
export async function textUnderDecoding(fs: FileSystem, target: FsTarget, exec: Pick<ToolExecution, 'signal'>, notUtf8: FsError): Promise<string> {
  if (decodingOf(exec) === undefined || await looksBinary(fs, target, exec.signal)) throw notUtf8
  try {
    return await fs.readText(target, readOptions(exec))
  } catch (error) {
    throw FsError.is(error, 'FS_NOT_TEXT') && error.candidates === undefined ? notUtf8 : error
  }
}

async function looksBinary(fs: FileSystem, target: FsTarget, signal: AbortSignal | undefined): Promise<boolean> {
  for await (const chunk of fs.streamBytes(target, signal)) {
    return utf16Bom(chunk) === undefined && chunk.subarray(0, BINARY_SNIFF_BYTES).indexOf(0) >= 0
  }
  return false
}

/** What a read of a file in a legacy encoding adds: the encoding, and that changes keep it. */
export function encodingNote(encoding: FsTextEncoding): string {
  return `[The file is in ${encoding}, not UTF-8; edits and writes keep it in ${encoding} and leave every byte they do not replace as it was.]`
}

/** The remedy of an `FS_NOT_TEXT` whose encoding the detector could not decide: how to name one. */
export function undecidedRemedy(candidates: readonly FsEncodingCandidate[], tool: string): string {
  const named = candidates.length > 0 ? candidates.map((c) => c.encoding) : SUPPORTED_ENCODINGS
  return `if you know its encoding, call the dsh \`${tool}\` tool again with encoding set to it `
    + `(${candidates.length > 0 ? 'possible' : 'supported'}: ${named.join(', ')}); otherwise it is not text these tools can show`
}

/** The remedy of `FS_NOT_ENCODABLE`. */
export const UNENCODABLE_REMEDY = 'use only characters that encoding has in the new text (or an escape the file format allows), then retry'

/** The remedy for an encoding refusal, if `error` is one. */
export function encodingRemedy(error: FsError, tool: string): string | undefined {
  if (error.code === 'FS_NOT_ENCODABLE') return UNENCODABLE_REMEDY
  if (error.code === 'FS_NOT_TEXT' && error.candidates !== undefined) return undecidedRemedy(error.candidates, tool)
  return undefined
}
