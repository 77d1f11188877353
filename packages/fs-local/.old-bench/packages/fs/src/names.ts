/**
 * A name as the model reads it in a listing: unchanged when it is printable, else a JSON string
 * (quotes included), so a newline or a control character in a file name cannot forge another
 * line of the listing, and the escaped form is still the exact name.
 */
export function escapeName(name: string): string {
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u001f\u007f\u0085\u2028\u2029"\\]/.test(name) ? JSON.stringify(name) : name
}
