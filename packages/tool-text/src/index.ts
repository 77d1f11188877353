export {
  buildWindow, skipLines, cutCodePoints, cutUtf8, linePrefix, renderedLineBytes,
  type ReadWindow, type SkippedSource, type WindowLine, type WindowOptions,
} from './window'
export { inspectTarget, natureSentence, type TargetNature } from './nature'
export { readCurrentVersion, type CurrentVersion } from './current'
export { nearestRegion, type NearestRegion } from './nearest'
export { notAFileText, FS_TOOL_WORDS, EDITOR_WORDS, type Attempt, type NotAFile, type ToolWords } from './remedies'
export { countLines } from './lines'
export { LineIndex, type Checkpoint, type LineIndexOptions } from './line-index'
export { skipLinesIndexed, type PagedTarget } from './paging'
export { inspectPath, mutationTarget, resolveTarget } from './paths'
