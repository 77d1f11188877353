/** One part of a `multipart/form-data` body. */
export interface FormPart {
  name: string | undefined
  filename: string | undefined
  data: Buffer
}

/** The boundary parameter of a multipart content type, or undefined. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  if (!contentType?.toLowerCase().startsWith('multipart/form-data')) return undefined
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType)
  return match?.[1] ?? match?.[2]
}

/**
 * Splits a buffered multipart body into parts. The upload API's whole body is in memory
 * anyway (test support, small files), which keeps this a plain search for the delimiter.
 */
export function parseMultipart(body: Buffer, boundary: string): FormPart[] {
  const delimiter = Buffer.from(`--${boundary}`)
  const parts: FormPart[] = []
  let at = body.indexOf(delimiter)
  if (at < 0) throw new Error('multipart body has no opening boundary')
  for (;;) {
    at += delimiter.length
    // `--` right after a delimiter closes the body.
    if (body[at] === 0x2d && body[at + 1] === 0x2d) return parts
    at = skipLineBreak(body, at)
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), at)
    if (next < 0) throw new Error('multipart body is truncated')
    const headerEnd = body.indexOf('\r\n\r\n', at)
    if (headerEnd < 0 || headerEnd > next) throw new Error('multipart part has no header block')
    const headers = body.subarray(at, headerEnd).toString('utf8')
    parts.push({ ...disposition(headers), data: body.subarray(headerEnd + 4, next) })
    at = next + 2
  }
}

function skipLineBreak(body: Buffer, at: number): number {
  if (body[at] === 0x0d && body[at + 1] === 0x0a) return at + 2
  throw new Error('malformed multipart delimiter line')
}

function disposition(headers: string): { name: string | undefined; filename: string | undefined } {
  const line = headers.split('\r\n').find((h) => h.toLowerCase().startsWith('content-disposition:'))
  if (!line) return { name: undefined, filename: undefined }
  return { name: param(line, 'name'), filename: param(line, 'filename') }
}

// A parameter's value as Go's mime package reads it: a quoted string with backslash escapes
// undone, or a bare token. Percent escapes are left alone, as envd leaves them.
function param(line: string, key: string): string | undefined {
  const match = new RegExp(`;\\s*${key}=(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]*))`, 'i').exec(line)
  if (!match) return undefined
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2]
}
