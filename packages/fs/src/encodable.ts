/** The 1-based line and column (in code points) of the UTF-16 offset `at` of `text`. */
export function lineAndColumn(text: string, at: number): { line: number; column: number } {
  let line = 1
  let lineStart = 0
  for (let i = text.indexOf('\n'); i >= 0 && i < at; i = text.indexOf('\n', i + 1)) {
    line++
    lineStart = i + 1
  }
  return { line, column: [...text.slice(lineStart, at)].length + 1 }
}

/** How a character is named to the model: itself and its code point ("'€' (U+20AC)"). */
export function describeCharacter(character: string): string {
  const code = character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')
  return `${JSON.stringify(character)} (U+${code})`
}
