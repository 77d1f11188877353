import { FsError } from '@deepseek-ai/dsh-fs'
import { defineTool } from '@deepseek-ai/dsh-tools'
import type { Context } from 'cordis'
import { z } from 'zod'
import type { Config } from './config'
import { inspectPath } from './paths'
import { renderFailure, renderRead } from './render'
import { buildWindow, skipLines } from './window'

export const readInput = z.object({
  file_path: z.string().describe('The file to show: absolute, or relative to the working directory.'),
  offset: z.number().int().min(1).optional().describe('The line number to start from (1-based). Default 1.'),
  limit: z.number().int().min(1).optional().describe('How many lines to show. Default and maximum: the line limit of this tool.'),
})

/**
 * `read`: one `inspect` (the stat, with the text of a small file) routes the call. A miss is an
 * observation (`absent`) that lets the policy allow a guarded create; a regular file is windowed and recorded `present` at the stat's version.
 * No second stat confirms it: a writer racing the read can only make a later guarded edit stale.
 */
export function readTool(ctx: Context, config: Config) {
  return defineTool({
    name: 'read',
    title: 'Read file',
    description: 'Shows a text file with numbered lines, like `cat -n` (number, tab, text); the numbers are not part of the file. '
      + `Returns up to ${config.readLimit} lines from offset; a longer file ends with the offset to continue from. `
      + 'Call this tool on a file before changing it with the dsh `edit` or `write` tool: they refuse an existing file '
      + 'that this tool has not shown in the session.',
    // Read-only toward the files; what it records is the session's own policy state, not the environment.
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    inputSchema: readInput,
    concurrency: 'shared',
    async execute(input, exec) {
      try {
        // The provider's one step: target, stat and, for a small file, its text.
        const { target, info, text } = await inspectPath(ctx, input.file_path, exec, config.readStreamThreshold)
        const path = target.displayPath
        if (info === undefined) {
          ctx.emit('fs/observed', target, { kind: 'absent' }, exec)
          throw new FsError('FS_NOT_FOUND', `${path} does not exist`, { path })
        }
        if (info.type !== 'file') {
          // Decided from the stat alone: a FIFO or device is never opened, so nothing can block.
          const what = info.type === 'directory' ? 'a directory' : 'a special file'
          throw new FsError('FS_NOT_REGULAR_FILE', `${path} is ${what}, not a regular file`, { path })
        }
        const offset = input.offset ?? 1
        // Large files: the lines before the window are skipped as bytes, never decoded.
        const source = text !== undefined
          ? { firstLine: 1, chunks: [text] }
          : await skipLines(ctx.fs.streamBytes(target, exec.signal), offset, path)
        const window = await buildWindow(source.chunks, {
          offset,
          firstLine: source.firstLine,
          limit: Math.min(input.limit ?? config.readLimit, config.readLimit),
          maxLineLength: config.readMaxLineLength,
          maxBytes: config.readMaxBytes,
        })
        ctx.emit('fs/observed', target, { kind: 'present', version: info.version }, exec)
        return renderRead({ path, offset, window, maxLineLength: config.readMaxLineLength, maxBytes: config.readMaxBytes })
      } catch (error) {
        if (FsError.is(error)) return renderFailure('read', error)
        throw error
      }
    },
  })
}
