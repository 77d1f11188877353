import { type DecodedText, Utf8StreamDecoder } from './decode'
import { countLineEndings } from './line-endings'

/** What an overwrite keeps of the file it replaces. */
export interface TextStyle {
  bom: boolean
  /** Every line ending is CRLF (and there is at least one). */
  crlf: boolean
}

export function styleOfText(previous: DecodedText): TextStyle {
  const { crlf, lf } = countLineEndings(previous.text)
  return { bom: previous.bom, crlf: crlf > 0 && lf === 0 }
}

/**
 * The text to store when `content` overwrites a file that held `previous` (null for a new file).
 * New files are written as given. Over an existing file the BOM is kept, and a file that used CRLF
 * throughout stays CRLF when the new content has bare LF only.
 */
export function prepareOverwrite(previous: DecodedText | TextStyle | null, content: string): DecodedText {
  const leadingBom = content.charCodeAt(0) === 0xfeff
  let text = leadingBom ? content.slice(1) : content
  if (previous === null) return { text, bom: leadingBom }
  const style = 'text' in previous ? styleOfText(previous) : previous
  if (style.crlf && crlfRuleApplies(text)) text = text.replaceAll('\n', '\r\n')
  // A file in another encoding stays in it (`encodeFor` writes the text in it).
  const encoding = 'text' in previous ? previous.encoding : undefined
  return encoding === undefined ? { text, bom: style.bom || leadingBom } : { text, bom: style.bom || leadingBom, encoding }
}

/** Whether the CRLF rule of `prepareOverwrite` can change `content`: it has bare LFs only. */
export function crlfRuleApplies(content: string): boolean {
  return content.includes('\n') && !content.includes('\r\n')
}

/**
 * Learns the `TextStyle` of a file from as few bytes as it can: the BOM from the first three and,
 * only when `content` is subject to the CRLF rule, line endings up to the first bare LF. Feed chunks
 * until `push` returns true, then call `end`. Unlike `decodeText`, bytes after the decision are
 * never looked at, so a file that turns invalid later still counts as text: the cost of replacing a
 * large file no longer includes reading it whole.
 */
export class TextStyleProbe {
  #decoder = new Utf8StreamDecoder()
  #seen = 0
  #crlf = 0
  #bareLf = false
  #lastWasCr = false
  #notText = false
  /** `crlfRuleApplies(content)`, once: asked per chunk, it made a CRLF file's probe quadratic (64 MiB: 16 s). */
  #ruleApplies: boolean | undefined

  constructor(private readonly content: string) {}

  push(chunk: Uint8Array): boolean {
    if (this.#notText) return true
    try {
      this.#decoder.skip(chunk)
    } catch {
      this.#notText = true
      return true
    }
    this.#seen += chunk.length
    for (let i = chunk.indexOf(0x0a); i >= 0 && !this.#bareLf; i = chunk.indexOf(0x0a, i + 1)) {
      if ((i > 0 ? chunk[i - 1] === 0x0d : this.#lastWasCr)) this.#crlf++
      else this.#bareLf = true
    }
    if (chunk.length > 0) this.#lastWasCr = chunk[chunk.length - 1] === 0x0d
    return this.#seen >= 3 && (this.#bareLf || !(this.#ruleApplies ??= crlfRuleApplies(this.content)))
  }

  /** The style; `atEnd` says the whole file was pushed (a truncated last character is then not text). */
  end(atEnd: boolean): TextStyle | null {
    if (!this.#notText && atEnd) {
      try {
        this.#decoder.end()
      } catch {
        this.#notText = true
      }
    }
    return this.#notText ? null : { bom: this.#decoder.bom, crlf: !this.#bareLf && this.#crlf > 0 }
  }
}
