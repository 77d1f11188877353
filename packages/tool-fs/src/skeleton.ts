import { FsError, type FsTarget } from '@deepseek-ai/dsh-fs'
import { type FileRefusal, renderRefusal } from '@deepseek-ai/dsh-tool-text'
import { defineTool, isRefusal, type ToolAnnotations, type ToolExecution, type ToolInputSchema, type ToolRefusal } from '@deepseek-ai/dsh-tools'
import type { z } from 'zod'
import { FOREIGN_NAMES } from './foreign-names'

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

/** One tool of the family: its words and schema, the work as data, its refusal, and its success text. */
export interface FsToolSpec<S extends ToolInputSchema, D> {
  name: keyof typeof FOREIGN_NAMES | 'apply_patch'
  title: string
  description: string
  inputSchema: S
  kind: FsToolKind
  /** The work: data for `render`, or a refusal made before or after any I/O. */
  run(input: z.output<S>, call: FsCall): Promise<D | Refused>
  /** The provider's or policy's refusal, as data; the failure path may look further at the target. */
  refused(error: FsError, call: FsCall, input: z.output<S>): Refused | Promise<Refused>
  render(data: D): string
}

const LOOK: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }

/**
 * The skeleton every tool of the family shares: hints and concurrency from its kind, the foreign
 * names of its table, an `FsError` turned into a refusal value, and the one render step (a refusal's
 * text from dsh-tool-text, the rest from the tool's own renderer).
 */
export function fsTool<S extends ToolInputSchema, D>(spec: FsToolSpec<S, D>) {
  const change = spec.kind === 'look' ? undefined : spec.kind.change
  return defineTool({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    ...(spec.name === 'apply_patch' ? {} : { foreignNames: FOREIGN_NAMES[spec.name] }),
    annotations: change === undefined ? LOOK : { readOnlyHint: false, destructiveHint: true, idempotentHint: change.idempotent, openWorldHint: false },
    inputSchema: spec.inputSchema,
    concurrency: change === undefined ? 'shared' : 'exclusive',
    async execute(input, exec): Promise<D | Refused> {
      const call: FsCall = { exec }
      try {
        return await spec.run(input, call)
      } catch (error) {
        if (FsError.is(error)) return spec.refused(error, call, input)
        throw error
      }
    },
    render: (data: D | Refused) => isRefusal(data) ? renderRefusal(data.refused as FileRefusal) : spec.render(data as D),
  })
}
