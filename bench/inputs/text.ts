import { once } from 'node:events'
import { createWriteStream } from 'node:fs'

/** xorshift32: deterministic, so every run reads the same bytes. */
function prng(seed: number): () => number {
  let x = seed >>> 0 || 1
  return () => {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    return (x >>> 0) / 0x1_0000_0000
  }
}

const WORDS = ['const', 'value', 'return', 'function', 'if', 'else', 'await', 'import', 'from', 'export', 'the', 'file',
  'line', 'buffer', 'window', 'offset', 'limit', 'target', 'version', '=', '{', '}', '(', ')', ';', '//', 'ünïcode', '→']

/** A pool of code-like lines (ASCII plus some multibyte characters), 89 bytes long on average. */
function linePool(random: () => number, count: number): string[] {
  const pool: string[] = []
  for (let i = 0; i < count; i++) {
    const target = 20 + Math.floor(random() * 138)
    let line = '  '.repeat(Math.floor(random() * 4))
    while (Buffer.byteLength(line) < target) line += `${WORDS[Math.floor(random() * WORDS.length)]} `
    pool.push(line.trimEnd())
  }
  return pool
}

export interface GeneratedText {
  path: string
  bytes: number
  lines: number
}

/**
 * Streams about `bytes` bytes of LF-terminated text lines to `path` without holding the file in
 * memory: lines are drawn from a fixed pool and written in ~1 MiB chunks, respecting backpressure.
 */
export async function generateTextFile(path: string, bytes: number, seed = 42): Promise<GeneratedText> {
  const random = prng(seed)
  const pool = linePool(random, 8192).map((line) => Buffer.from(`${line}\n`))
  const out = createWriteStream(path)
  let written = 0
  let lines = 0
  while (written < bytes) {
    // A fresh buffer per chunk: the stream may still hold the previous one.
    const chunk = Buffer.allocUnsafe(Math.min(1024 * 1024, bytes - written) + 256)
    let used = 0
    while (used < chunk.length - 256 && written + used < bytes) {
      used += pool[Math.floor(random() * pool.length)]!.copy(chunk, used)
      lines++
    }
    written += used
    if (!out.write(chunk.subarray(0, used))) await once(out, 'drain')
  }
  out.end()
  await once(out, 'finish')
  return { path, bytes: written, lines }
}

/** Exactly `bytes` bytes of text (for write sizes): pool lines, cut to length, ending in a newline. */
export function textOfSize(bytes: number, seed = 7): string {
  const random = prng(seed)
  const pool = linePool(random, 1024)
  const parts: string[] = []
  let size = 0
  while (size < bytes) {
    const line = `${pool[Math.floor(random() * pool.length)]!.replace(/[^\x20-\x7e]/g, 'x')}\n`
    parts.push(line)
    size += line.length
  }
  const text = parts.join('')
  return `${text.slice(0, bytes - 1)}\n`
}
