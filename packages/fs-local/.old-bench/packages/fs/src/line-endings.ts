export type LineEnding = '\n' | '\r\n'

export interface LineEndingCounts {
  crlf: number
  /** Line feeds not preceded by a carriage return. */
  lf: number
}

export function countLineEndings(text: string): LineEndingCounts {
  let crlf = 0
  let lf = 0
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) {
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++
    else lf++
  }
  return { crlf, lf }
}

/** The line ending most of the file uses; LF on a tie or when there is none. */
export function dominantLineEnding(text: string): LineEnding {
  const { crlf, lf } = countLineEndings(text)
  return crlf > lf ? '\r\n' : '\n'
}

export function normalizeLineEndings(text: string): string {
  return text.includes('\r\n') ? text.replaceAll('\r\n', '\n') : text
}
