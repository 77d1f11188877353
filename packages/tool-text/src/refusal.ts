import { type ArgumentRefusal, renderArgumentRefusal } from './refusal-argument'
import { type EditorRefusal, renderEditorRefusal } from './refusal-editor'
import { type FsRefusal, renderFsRefusal } from './refusal-fs'
import { type PatchRefusal, renderPatchStop } from './refusal-patch'

/**
 * Every refusal of both file tool families, as the data their tools return. One renderer words
 * them all: the render step of each tool calls `renderRefusal` and nothing else for a refusal.
 */
export type FileRefusal = FsRefusal | ArgumentRefusal | PatchRefusal | EditorRefusal

export function renderRefusal(refusal: FileRefusal): string {
  if ('argument' in refusal) return renderArgumentRefusal(refusal)
  if ('patch' in refusal) return renderPatchStop(refusal)
  if ('editor' in refusal) return renderEditorRefusal(refusal)
  return renderFsRefusal(refusal)
}
