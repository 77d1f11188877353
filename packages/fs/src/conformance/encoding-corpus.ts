import iconv from 'iconv-lite'
import type { FsTextEncoding } from '../encodings'

// Files in every encoding dsh edits besides UTF-8: natural text (so the detector has something to
// recognise), multibyte characters, and CRLF in some. The long ones put a multibyte character
// across each byte offset where our pipeline cuts a file: the binary sniff window (8 KiB) and the
// detector's sample and a local read's first chunk (64 KiB).

export interface CorpusFile {
  name: string
  encoding: FsTextEncoding
  /** Whether the file starts with a byte order mark (UTF-16 only). */
  bom: boolean
  text: string
  /** What detection decides without help; `undefined` when the file needs its encoding named. */
  detected?: FsTextEncoding
  /** A character that occurs in the text and takes more than one byte (a single byte for 8-bit encodings). */
  wide: string
}

const FRENCH = [
  'Le château de la forêt était très ancien ; les élèves étudiaient près de la fenêtre.',
  "À l'été, on mangeait des crêpes et des gâteaux à la crème : c'était naïf et délicieux.",
  'Le garçon a reçu une lettre de son père, déçu que la fête fût annulée.',
  'Où est passé le cœur de l’œuvre ? « Ça dépend », répondit-elle — 12 € seulement.',
]
const JAPANESE = [
  '吾輩は猫である。名前はまだ無い。',
  'どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。',
  '吾輩はここで始めて人間というものを見た。しかもあとで聞くとそれは書生という人間中で一番獰悪な種族であったそうだ。',
]
const CHINESE = [
  '中华人民共和国是工人阶级领导的、以工农联盟为基础的人民民主专政的社会主义国家。',
  '社会主义制度是中华人民共和国的根本制度。中国共产党领导是中国特色社会主义最本质的特征。',
  '禁止任何组织或者个人破坏社会主义制度。国家的一切权力属于人民。',
]
const KOREAN = [
  '대한민국은 민주공화국이다. 대한민국의 주권은 국민에게 있고, 모든 권력은 국민으로부터 나온다.',
  '대한민국의 국민이 되는 요건은 법률로 정한다. 국가는 법률이 정하는 바에 의하여 재외국민을 보호할 의무를 진다.',
  '대한민국의 영토는 한반도와 그 부속도서로 한다. 대한민국은 통일을 지향하며, 평화적 통일 정책을 수립하고 이를 추진한다.',
]
const MIXED = ['Grüße aus Köln: 東京, 北京, 서울 — “quoted” ✓ and an emoji 🐈.', 'Second line', 'Third line: Ωμέγα']

function lines(paragraph: readonly string[], eol: string): string {
  return paragraph.map((line, i) => `${i + 1}: ${line}${eol}`).join('')
}

/** The small corpus: one file per encoding. */
export const ENCODING_CORPUS: readonly CorpusFile[] = [
  { name: 'utf16le.txt', encoding: 'utf-16le', bom: true, text: lines(MIXED, '\r\n'), detected: 'utf-16le', wide: '🐈' },
  { name: 'utf16be.txt', encoding: 'utf-16be', bom: true, text: lines(MIXED, '\n'), detected: 'utf-16be', wide: '東' },
  { name: 'french-1252.txt', encoding: 'windows-1252', bom: false, text: lines(FRENCH, '\r\n'), detected: 'windows-1252', wide: 'é' },
  { name: 'french-latin1.txt', encoding: 'iso-8859-1', bom: false, text: lines(FRENCH.slice(0, 3), '\n'), wide: 'é' },
  { name: 'japanese-sjis.txt', encoding: 'shift_jis', bom: false, text: lines(JAPANESE, '\r\n'), detected: 'shift_jis', wide: '猫' },
  { name: 'japanese-eucjp.txt', encoding: 'euc-jp', bom: false, text: lines(JAPANESE, '\n'), detected: 'euc-jp', wide: '猫' },
  { name: 'chinese-gbk.txt', encoding: 'gbk', bom: false, text: lines(CHINESE, '\n'), wide: '国' },
  { name: 'chinese-gb18030.txt', encoding: 'gb18030', bom: false, text: lines(CHINESE, '\r\n'), detected: 'gb18030', wide: '国' },
  { name: 'korean-euckr.txt', encoding: 'euc-kr', bom: false, text: lines(KOREAN, '\n'), detected: 'euc-kr', wide: '한' },
]

/** The bytes of a corpus file. */
export function corpusBytes(file: Pick<CorpusFile, 'encoding' | 'bom' | 'text'>): Uint8Array {
  const body = iconv.encode(file.text, file.encoding, { addBOM: false })
  if (!file.bom) return Uint8Array.from(body)
  return Uint8Array.from(Buffer.concat([iconv.encode('\ufeff', file.encoding, { addBOM: false }), body]))
}

/** Byte offsets where a file is cut on its way to the decoder. */
export const CUT_OFFSETS = [8192, 64 * 1024] as const

/**
 * `file` grown past the last cut offset, with its wide character across every cut: ASCII padding,
 * then the character starting one byte (one UTF-16 unit) before the cut.
 */
export function acrossCuts(file: CorpusFile): CorpusFile {
  const unit = file.encoding.startsWith('utf-16') ? 2 : 1
  const filler = file.text.split(/\r?\n/).filter(Boolean).map((line) => `~ ${line.replace(/^\d+: /, '')}\n`)
  let text = file.text
  for (const cut of CUT_OFFSETS) {
    // Natural text (what the detector reads) up to near the cut, then "x" * pad, a line feed, and
    // the character at byte `cut - unit`.
    for (let i = 0; corpusBytes({ ...file, text: text + filler[i % filler.length]! }).length < cut - 64; i++) text += filler[i % filler.length]!
    const pad = (cut - corpusBytes({ ...file, text }).length) / unit - 2
    text += `${'x'.repeat(pad)}\n${file.wide}\n`
  }
  return { ...file, name: file.name.replace('.txt', '-long.txt'), text: `${text}end\n` }
}

/** Where the first `wide` after `from` starts in the bytes of `file` (for the corpus test's own check). */
export function wideOffset(file: CorpusFile, from: number): number {
  const unit = file.encoding.startsWith('utf-16') ? 2 : 1
  const wide = corpusBytes({ encoding: file.encoding, bom: false, text: file.wide })
  const bytes = corpusBytes(file)
  for (let at = from - (from % unit); at + wide.length <= bytes.length; at += unit) {
    if (wide.every((byte, i) => bytes[at + i] === byte)) return at
  }
  return -1
}
