import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { crc32, deflateSync } from 'node:zlib'

/**
 * Media files written byte by byte, so tests and benchmarks need no fixture files: PDFs with
 * given page texts, and PNG headers that declare any size.
 */

/** A page's text lines, or `null` for a page with no text layer (a drawn rectangle only). */
export type PdfPage = readonly string[] | null

/** A valid PDF 1.4 (xref offsets exact) whose pages show the given lines in Helvetica. */
export function minimalPdf(pages: readonly PdfPage[]): Uint8Array {
  const objects: string[] = []
  const kids = pages.map((_, index) => `${4 + index * 2} 0 R`).join(' ')
  objects.push('<< /Type /Catalog /Pages 2 0 R >>')
  objects.push(`<< /Type /Pages /Kids [${kids}] /Count ${pages.length} >>`)
  objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>')
  for (const [index, lines] of pages.entries()) {
    const content = lines === null ? '0.5 g 100 100 200 200 re f' : pageStream(lines)
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + index * 2} 0 R >>`)
    objects.push(`<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`)
  }
  let out = '%PDF-1.4\n'
  const offsets: number[] = []
  for (const [index, body] of objects.entries()) {
    offsets.push(Buffer.byteLength(out, 'latin1'))
    out += `${index + 1} 0 obj\n${body}\nendobj\n`
  }
  const xref = Buffer.byteLength(out, 'latin1')
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`
  for (const offset of offsets) out += `${String(offset).padStart(10, '0')} 00000 n \n`
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return Buffer.from(out, 'latin1')
}

/**
 * A one-page PDF whose content stream is `content`, deflated (xref offsets exact). With a large
 * `content` it is a decompression bomb: 256 MiB of spaces deflate to about 260 KB.
 */
export function deflatedPdf(content: string | Buffer): Buffer {
  const stream = deflateSync(typeof content === 'string' ? Buffer.from(content, 'latin1') : content, { level: 9 })
  const parts: Buffer[] = []
  const offsets: number[] = []
  let length = 0
  const put = (part: Buffer | string) => {
    const bytes = typeof part === 'string' ? Buffer.from(part, 'latin1') : part
    parts.push(bytes)
    length += bytes.length
  }
  put('%PDF-1.4\n')
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
  ]
  for (const [index, object] of objects.entries()) {
    offsets.push(length)
    put(`${index + 1} 0 obj\n${object}\nendobj\n`)
  }
  offsets.push(length)
  put(`4 0 obj\n<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`)
  put(stream)
  put('\nendstream\nendobj\n')
  offsets.push(length)
  put('5 0 obj\n<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>\nendobj\n')
  const xref = length
  put(`xref\n0 6\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('')}`)
  put(`trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`)
  return Buffer.concat(parts)
}

function pageStream(lines: readonly string[]): string {
  const shown = lines.map((line) => `(${line.replace(/[\\()]/g, (c) => `\\${c}`)}) Tj T*`).join(' ')
  return `BT /F1 12 Tf 14 TL 72 720 Td ${shown} ET`
}

/**
 * A PNG whose header declares `width` × `height` pixels of 8-bit grey but whose data is a few
 * hundred bytes: a decompression bomb when the size is large (its rows would all be zeros).
 */
export function declaredPng(width: number, height: number, rows = 1): Uint8Array {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([8, 0, 0, 0, 0], 8)
  const data = deflateSync(Buffer.alloc(Math.min(rows, height) * (width + 1)))
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', data), chunk('IEND', Buffer.alloc(0))])
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([length, body, crc])
}

/**
 * `pdf` encrypted by qpdf (Debian package `qpdf`, installed by `.ci/run`) with AES-256: `user` is
 * the password needed to open it (`''`: none, only the owner password restricts it).
 */
export function encryptedPdf(pdf: Uint8Array, user: string, dir: string): Uint8Array {
  const plain = join(dir, 'plain.pdf')
  const sealed = join(dir, 'sealed.pdf')
  writeFileSync(plain, pdf)
  execFileSync('qpdf', ['--encrypt', user, 'owner-secret', '256', '--', plain, sealed])
  return readFileSync(sealed)
}
