import { analyse } from 'chardet'
import type { FsEncodingCandidate } from './errors'
import { decodeExactly, type FsTextEncoding } from './encodings'

/**
 * The detector's confidence (chardet's 0–100 scale) at which its best guess is taken. Measured
 * (`.agents/notes/2026-12-02-legacy-encodings.md`): natural text of a few hundred bytes scores 84 to
 * 100 in the encodings below, and over 10,000 samples of 512 random non-NUL bytes no guess among
 * them passed 14; 60 leaves a wide margin on both sides.
 */
export const DETECT_MIN_CONFIDENCE = 60

/** How much of a file the detector looks at: its statistics settle long before, and its cost grows with the sample. */
export const DETECT_SAMPLE_BYTES = 64 * 1024

/** chardet's names for the encodings we can edit byte-exact. ISO-8859-1 text is decoded as its superset, Windows-1252. */
const DETECTABLE: Record<string, FsTextEncoding> = {
  'ISO-8859-1': 'windows-1252',
  'windows-1252': 'windows-1252',
  Shift_JIS: 'shift_jis',
  'EUC-JP': 'euc-jp',
  GB18030: 'gb18030',
  'EUC-KR': 'euc-kr',
}

/** How many of the detector's guesses are tried against the whole file. */
const MAX_TRIED = 3

// C0 and C1 control characters that no text file holds (tab, line feed, vertical tab, form feed,
// carriage return and escape are allowed): bytes that decode to them are a sign of binary data.
const CONTROL = /[\u0000-\u0008\u000e-\u001a\u001c-\u001f\u007f-\u009f]/

export interface Detection {
  /** Set when one encoding decodes the file exactly, as text, with confidence at the bound or above. */
  found?: { encoding: FsTextEncoding; text: string; confidence: number }
  /** The encodings that decode the file exactly as text but fell below the bound, most likely first. */
  candidates: FsEncodingCandidate[]
}

/**
 * Decides the encoding of bytes that are not UTF-8 and carry no BOM. Each guess of the detector
 * must also decode the whole file exactly (`decodeExactly`) into text without control characters;
 * a guess that does not is no candidate at all.
 */
export function detectEncoding(bytes: Uint8Array): Detection {
  const sample = bytes.subarray(0, DETECT_SAMPLE_BYTES)
  const candidates: FsEncodingCandidate[] = []
  for (const { encoding, confidence } of guessesOf(sample).slice(0, MAX_TRIED)) {
    // The sample rules a guess out cheaply; only a guess that will be taken decodes the whole file.
    if (!isText(sample, encoding, sample.length < bytes.length)) continue
    if (confidence < DETECT_MIN_CONFIDENCE) {
      candidates.push({ encoding, confidence })
      continue
    }
    const text = decodeExactly(bytes, encoding)
    if (text !== undefined && !CONTROL.test(text)) return { found: { encoding, text, confidence }, candidates }
  }
  return { candidates }
}

/** Whether `bytes` are exactly text in `encoding`; `cut`: they end where a sample was cut, maybe inside a character (up to 3 bytes of it). */
function isText(bytes: Uint8Array, encoding: FsTextEncoding, cut: boolean): boolean {
  for (let drop = 0; drop <= (cut ? 3 : 0); drop++) {
    const text = decodeExactly(bytes.subarray(0, bytes.length - drop), encoding)
    if (text !== undefined) return !CONTROL.test(text)
  }
  return false
}

/** The detector's guesses among the encodings we support, best first, each encoding once. */
export function guessesOf(sample: Uint8Array): Array<{ encoding: FsTextEncoding; confidence: number }> {
  const seen = new Set<FsTextEncoding>()
  const guesses: Array<{ encoding: FsTextEncoding; confidence: number }> = []
  for (const match of analyse(sample)) {
    const encoding = DETECTABLE[match.name]
    if (encoding === undefined || seen.has(encoding)) continue
    seen.add(encoding)
    guesses.push({ encoding, confidence: match.confidence })
  }
  return guesses
}
