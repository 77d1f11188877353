import { FS_TEXT_ENCODINGS } from '@deepseek-ai/dsh-fs'
import { z } from 'zod'

export const Config = z.object({
  readLimit: z.number().int().min(1).default(2000)
    .describe('Most lines one read returns; a window cut here ends with offset=N to continue.'),
  readMaxLineLength: z.number().int().min(1).default(2000)
    .describe('Characters shown of one line; longer lines are cut and flagged.'),
  readMaxBytes: z.number().int().min(1).default(50 * 1024)
    .describe('Byte budget of the numbered lines of one read.'),
  readStreamThreshold: z.number().int().min(0).default(256 * 1024)
    .describe('Files larger than this (bytes) are streamed, so a read costs what its window costs.'),
  editSnippetContext: z.number().int().min(0).default(4)
    .describe('Unchanged lines shown around a change in an edit or write result (4, as in the editor family).'),
  discoveryTools: z.boolean().default(true).describe('Register glob, grep and list.'),
  multiEdit: z.boolean().default(true).describe('Register multi_edit.'),
  applyPatch: z.boolean().default(false).describe('Register apply_patch (Codex\'s patch format: several files at once, all or nothing, every guard kept).'),
  globLimit: z.number().int().min(1).default(100).describe('Most paths one glob returns; a cut result ends with offset=N to continue.'),
  grepLimit: z.number().int().min(1).default(100).describe('Most files one grep returns in files_with_matches and count modes.'),
  grepContentLimit: z.number().int().min(1).default(200).describe('Most matching lines one grep returns in content mode.'),
  listLimit: z.number().int().min(1).default(500).describe('Most entries one list returns.'),
  detectEncodings: z.boolean().default(false)
    .describe('A file that is not UTF-8 is decoded from its byte order mark (UTF-16) or by an encoding detector with a confidence bound, and edited byte-exact in its encoding; off, it is refused as not text.'),
  defaultEncoding: z.enum(FS_TEXT_ENCODINGS).optional()
    .describe('The encoding assumed for a file that is neither UTF-8 nor BOM-marked when the detector cannot decide (or detection is off).'),
  staleRefusalObserves: z.boolean().default(false)
    .describe('A write or edit refused as stale shows the current text and records that version as read (or the file as absent), so the retry can succeed at once.'),
}).strict().prefault({})

export type Config = z.output<typeof Config>
