import { type ArgumentRefusal, renderArgumentRefusal } from './refusal-argument'
import { type EditorRefusal, renderEditorRefusal } from './refusal-editor'
import { type FsRefusal, renderFsRefusal } from './refusal-fs'
import { type PatchRefusal, renderPatchStop } from './refusal-patch'
import { type PathFormRefusal, renderPathFormRefusal } from './path-form'
import type { TextReach } from './reach'

/**
 * Every refusal of both file tool families, as the data their tools return. One renderer words
 * them all: the render step of each tool calls `renderRefusal` and nothing else for a refusal,
 * with what its configuration lets the tools read (`reach`), which decides what a refusal of a
 * file that is not UTF-8 text says.
 */
export type FileRefusal = FsRefusal | ArgumentRefusal | PatchRefusal | EditorRefusal | PathFormRefusal

export function renderRefusal(refusal: FileRefusal, reach?: TextReach): string {
  if ('argument' in refusal) return renderArgumentRefusal(refusal)
  if ('pathForm' in refusal) return renderPathFormRefusal(refusal)
  if ('patch' in refusal) return renderPatchStop(refusal, reach)
  if ('editor' in refusal) return renderEditorRefusal(refusal, reach)
  return renderFsRefusal(refusal, reach)
}
