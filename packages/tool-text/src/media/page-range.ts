/** Pages `first` to `last` (1-based, inclusive); `last` undefined: to the end of the document. */
export interface PageRange {
  first: number
  last?: number
}

/** `"3"`, `"1-5"` or `"4-"` as a range; `undefined` for anything else (including `"5-1"` and `"0"`). */
export function parsePageRange(text: string): PageRange | undefined {
  const match = /^\s*(\d{1,9})\s*(?:(-)\s*(\d{1,9})?)?\s*$/.exec(text)
  if (match === null) return undefined
  const first = Number(match[1])
  if (first < 1) return undefined
  if (match[2] === undefined) return { first, last: first }
  if (match[3] === undefined) return { first }
  const last = Number(match[3])
  return last >= first ? { first, last } : undefined
}
