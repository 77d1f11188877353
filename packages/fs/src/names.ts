// C0 and C1 controls, DEL, line and paragraph separators, and the bidirectional marks and
// overrides: a name holding one could start a line of its own or reorder what the model reads.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/
// eslint-disable-next-line no-control-regex
const ESCAPED = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"\\]/g
const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '"': '\\"', '\\': '\\\\' }

/**
 * A name or path as the model reads it in any listing (`view`, `read` of a directory, `list`,
 * `glob`, `grep`): unchanged when it is safe to print, else in double quotes with JSON's escapes
 * (every control or direction mark as `\uXXXX`), so a line feed in a name can neither forge
 * another entry nor put free text into the listing, and the quoted form still names it exactly.
 * A name that itself starts with `"` is quoted too, so a raw name never looks like a quoted one.
 */
export function escapeName(name: string): string {
  if (!CONTROL.test(name) && !name.startsWith('"')) return name
  return `"${name.replace(ESCAPED, (char) => SHORT[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`
}
