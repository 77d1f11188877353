/** The number of lines `cat -n` would show: a final line feed does not start another line. */
export function countLines(text: string): number {
  if (text.length === 0) return 0
  let count = 1
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) count++
  return text.endsWith('\n') ? count - 1 : count
}
