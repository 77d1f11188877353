import { FsError } from '@deepseek-ai/dsh-fs'
import { defineTool } from '@deepseek-ai/dsh-tools'
import type { Context } from 'cordis'
import { z } from 'zod'
import type { Config } from './config'
import { resolveTarget } from './paths'
import { renderFailure, renderRead } from './render'
import { LineIndex } from './line-index'
import { skipLinesIndexed } from './paging'
import { buildWindow } from './window'

export const readInput = z.object({
  file_path: z.string().describe('The file to show: absolute, or relative to the working directory.'),
  offset: z.number().int().min(1).optional().describe('The line number to start from (1-based). Default 1.'),
  limit: z.number().int().min(1).optional().describe('How many lines to show. Default and maximum: the line limit of this tool.'),
})

/**
 * `read`: one `stat` routes the call. A miss is an observation (`absent`) that lets the policy
 * allow a guarded create; a regular file is windowed and recorded `present` at the stat's version.
 * No second stat confirms it: a writer racing the read can only make a later guarded edit stale.
 */
export function readTool(ctx: Context, config: Config) {
  const lines = new LineIndex()
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
        const target = await resolveTarget(ctx, input.file_path, exec)
        const path = target.displayPath
        const info = await ctx.fs.stat(target, exec.signal)
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
        const small = info.size !== undefined && info.size <= config.readStreamThreshold
        // Large files: the lines before the window are skipped as bytes, never decoded.
        const source = small
          ? { firstLine: 1, chunks: [await ctx.fs.readText(target, exec.signal)] }
          : await skipLinesIndexed(lines, { fs: ctx.fs, target, version: info.version, signal: exec.signal }, offset)
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
