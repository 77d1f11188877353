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

/** The text with every CRLF as LF: what edits match against. */
export function normalizeLineEndings(text: string): string {
  return text.includes('\r\n') ? text.replaceAll('\r\n', '\n') : text
}

/**
 * The ending each line feed of `inserted` (LF only, or its lines) takes when it replaces `replaced` (raw, with
 * its own endings): a line of `inserted` that corresponds to a line of `replaced` keeps that line's
 * ending, anything else gets `fallback` (the file's dominant one). Lines correspond when they are
 * equal at the start or at the end of the two texts; the lines between correspond one by one, as
 * far as both have lines. So an edit inside a file of mixed endings turns no LF into a CRLF, nor the
 * other way, on a line it only rewrote.
 */
export function correspondingEndings(replaced: string, inserted: string | readonly string[], fallback: LineEnding): LineEnding[] {
  const oldEnds: LineEnding[] = []
  for (let i = replaced.indexOf('\n'); i >= 0; i = replaced.indexOf('\n', i + 1)) oldEnds.push(i > 0 && replaced.charCodeAt(i - 1) === 13 ? '\r\n' : '\n')
  const oldLines = normalizeLineEndings(replaced).split('\n')
  // The lines of `inserted` may come split already: one split for every replacement of a replace_all.
  const newLines = typeof inserted === 'string' ? inserted.split('\n') : inserted
  // Line k ends with line feed k; m and n are the line feeds of each side.
  const m = oldLines.length - 1
  const n = newLines.length - 1
  let same = 0
  while (same < m && same < n && oldLines[same] === newLines[same]) same++
  let sameAtEnd = 0
  while (sameAtEnd < m - same && sameAtEnd < n - same && oldLines[m - sameAtEnd] === newLines[n - sameAtEnd]) sameAtEnd++
  const endings: LineEnding[] = []
  for (let k = 0; k < n; k++) {
    let old: number | undefined
    if (k < same) old = k
    // The line feed before a line of the equal end: the one before the same line of the old text.
    else if (k >= n - sameAtEnd) old = k - (n - m)
    else if (k < m - sameAtEnd) old = k
    endings.push(old === undefined ? fallback : oldEnds[old]!)
  }
  return endings
}

/** `inserted` (LF only) with its k-th line feed written as `endings[k]`. */
export function withEndings(inserted: string, endings: readonly LineEnding[]): string {
  let k = 0
  return inserted.replace(/\n/g, () => endings[k++] ?? '\n')
}
