import { FsError, type FsTarget } from '@deepseek-ai/dsh-fs'
import { type DiscoveryToolName, type FileRefusal, fsRefused, type FsToolName, pathFormRefusal, reachOf, renderRefusal } from '@deepseek-ai/dsh-tool-text'
import { defineTool, isRefusal, type ToolAnnotations, type ToolExecution, type ToolInputSchema, type ToolRefusal, type ToolResult } from '@deepseek-ai/dsh-tools'
import type { Context } from 'cordis'
import type { z } from 'zod'
import type { Config } from './config'
import { FOREIGN_NAMES } from './foreign-names'
import { type FailedCall, refusal } from './refusals'

/** What a failure path knows of the call: the execution, and the target once the path resolved. */
export interface FsCall {
  exec: ToolExecution
  target?: FsTarget
}

/**
 * `look`: read-only toward the files, shared with the session's other calls. `change`: destructive,
 * exclusive; `idempotent` says whether the same call again leaves the same bytes.
 */
export type FsToolKind = 'look' | { change: { idempotent: boolean } }

export type Refused = ToolRefusal<FileRefusal>

/** A tool's words and schema: what a model is shown. */
export interface FsToolMeta<S extends ToolInputSchema> {
  /** Its foreign names come from `FOREIGN_NAMES` under this name, when it has an entry there. */
  name: string
  title: string
  description: string
  inputSchema: S
  kind: FsToolKind
  /**
   * Whose words its refusals borrow: a tool of the table below by default, else `read` for a tool
   * that looks and `edit` for one that changes.
   */
  refusedAs?: FsToolName | DiscoveryToolName
}

/** A tool's work, as data, and its success text. */
export interface FsToolWork<S extends ToolInputSchema, D> {
  /** The work: data for `render`, or a refusal made before or after any I/O. */
  run(ctx: Context, config: Config, input: z.output<S>, call: FsCall): Promise<D | Refused>
  /** The success text, or a whole result (a read of an image carries the image beside its text). */
  render(data: D, config: Config): string | ToolResult
  /** What a change's failure path needs of the input to show where it failed (old_string, or the edits). */
  quoted?(input: z.output<S>): Pick<FailedCall, 'oldString' | 'edits'>
}

const LOOK: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }

/** The tool whose words a refusal uses: a multi_edit or a patch section is refused as an edit. */
const REFUSED_AS: Record<string, FsToolName | DiscoveryToolName> = {
  read: 'read', write: 'write', edit: 'edit', multi_edit: 'edit', apply_patch: 'edit', glob: 'glob', grep: 'grep', list: 'list',
}

const FOREIGN: Record<string, readonly string[]> = FOREIGN_NAMES

/**
 * The skeleton every tool of the family shares: hints and concurrency from its kind, the foreign
 * names of its table, an `FsError` turned into a refusal value (discovery tools pass the provider's
 * account on; the others look further at the target, in `refusal`), and the one render step: a
 * refusal's text from dsh-tool-text, the rest from the tool's own renderer.
 */
export function fsTool<S extends ToolInputSchema, D>(ctx: Context, config: Config, meta: FsToolMeta<S>, work: FsToolWork<S, D>) {
  const change = meta.kind === 'look' ? undefined : meta.kind.change
  const { refusedAs: _as, kind: _kind, ...words } = meta
  const as = meta.refusedAs ?? REFUSED_AS[meta.name] ?? (change === undefined ? 'read' : 'edit')
  // Discovery tools pass the provider's account on; the others look further at the target first.
  const refused = (error: FsError, call: FsCall, input: z.output<S>): Refused | Promise<Refused> => as === 'glob' || as === 'grep' || as === 'list'
    ? fsRefused(as, error)
    : refusal(ctx, config, error, { tool: as, ...call, ...work.quoted?.(input) })
  // What the configuration lets these tools read decides the words of a refusal of a file that is not UTF-8 text.
  const reach = reachOf(config)
  return defineTool({
    ...words,
    ...(FOREIGN[meta.name] === undefined ? {} : { foreignNames: FOREIGN[meta.name] }),
    annotations: change === undefined ? LOOK : { readOnlyHint: false, destructiveHint: true, idempotentHint: change.idempotent, openWorldHint: false },
    concurrency: change === undefined ? 'shared' : 'exclusive',
    async execute(input, exec): Promise<D | Refused> {
      const call: FsCall = { exec }
      try {
        return await work.run(ctx, config, input, call)
      } catch (error) {
        if (FsError.is(error)) return refused(error, call, input)
        // A path in a shell's or another system's form, refused by the path helper before any provider call.
        const form = pathFormRefusal(error)
        if (form === undefined) throw error
        return form
      }
    },
    render: (data: D | Refused) => isRefusal(data) ? renderRefusal(data.refused as FileRefusal, reach) : work.render(data as D, config),
  })
}
