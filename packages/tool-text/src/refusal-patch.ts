import { refuse, type ToolRefusal } from '@deepseek-ai/dsh-tools'
import type { RenderLimits } from './render'
import {
  type PatchHunkFailure, type PatchPartial, patchProblemText, type PatchSectionProblem, renderPatchHunkFailure, renderPatchPartial, renderPatchRefusal,
} from './render-patch'
import type { TextReach } from './reach'
import { type FsRefusal, renderFsRefusal } from './refusal-fs'

/** Which section of a patch was refused: its 1-based index, its action and the path it names. */
export interface PatchSectionRef {
  index: number
  action: string
  path: string
}

/** Why `apply_patch` wrote nothing, or where it stopped, as data. */
export type PatchStop =
  /** The text is not in the patch format: `message` says where it goes wrong. */
  | { kind: 'syntax'; message: string }
  /** The markers hold no section. */
  | { kind: 'empty' }
  | { kind: 'hunk'; failure: PatchHunkFailure; limits: RenderLimits }
  /** A section refused by the tool's own check. */
  | { kind: 'problem'; section: PatchSectionRef; problem: PatchSectionProblem }
  /** A section refused by the provider or the policy, in the words the single-file tools use. */
  | { kind: 'account'; section: PatchSectionRef; account: FsRefusal }
  | { kind: 'partial'; partial: PatchPartial; limits: RenderLimits }

export interface PatchRefusal {
  patch: PatchStop
}

export function patchRefused(code: string, patch: PatchStop): ToolRefusal<PatchRefusal> {
  return refuse(code, { patch })
}

export function renderPatchStop({ patch }: PatchRefusal, reach?: TextReach): string {
  switch (patch.kind) {
    case 'syntax': return `The patch is not in the apply_patch format (${patch.message}). Nothing was written; fix it and send the whole patch again.`
    case 'empty': return 'The patch names no file: put at least one *** Add File, *** Delete File or *** Update File section between its markers.'
    case 'hunk': return `apply_patch wrote nothing. ${renderPatchHunkFailure(patch.failure, patch.limits)}`
    case 'problem': return renderPatchRefusal(patch.section.path, patch.section.index, patch.section.action, patchProblemText(patch.section.path, patch.problem))
    case 'account': return renderPatchRefusal(patch.section.path, patch.section.index, patch.section.action, renderFsRefusal(patch.account, reach))
    case 'partial': return renderPatchPartial(patch.partial, patch.limits)
  }
}
