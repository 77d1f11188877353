import { FS_TEXT_ENCODINGS } from '@deepseek-ai/dsh-fs'
import { ENCODING_ARGUMENT } from '@deepseek-ai/dsh-tool-text'
import { z } from 'zod'

/** The `encoding` argument of read, edit, multi_edit and write, in their schemas when the configuration turns encodings on (`withEncodings`). */
export const encodingArgument = z.enum(FS_TEXT_ENCODINGS).optional().describe(ENCODING_ARGUMENT)
