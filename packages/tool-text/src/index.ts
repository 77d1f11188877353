export {
  buildWindow, cutCodePoints, cutUtf8, linePrefix, renderedLineBytes,
  type ReadWindow, type SkippedSource, type WindowLine, type WindowOptions,
} from './window'
export { rangeWindow, type TextWindow, type WindowLimits } from './range'
export { inspectTarget, isSymbolicLink, natureSentence, type TargetNature, tooLargeText } from './nature'
export { readCurrentVersion, type CurrentVersion } from './current'
export { nearestRegion, type NearestRegion } from './nearest'
export { type ChangedBy, type Closest, closestRegion } from './closest'
export { type Touch, TOUCHED_MAX_LINES, type TouchedLines, touchedLines } from './touched'
export { notAFileText, notTextRemedy, readOnlyText, textOnlyRemedy, FS_TOOL_WORDS, EDITOR_WORDS, type Attempt, type NotAFile, type ToolWords } from './remedies'
export { reachOf, type TextReach, UTF8_ONLY } from './reach'
export { RUNTIME_WORDS } from './runtime-words'
export { countLines } from './lines'
export { type LineSpan, SNIPPET_CONTEXT, SNIPPET_MAX_CHANGED, snippetLines, type SnippetOptions, snippetSpan } from './snippet'
export type {
  EditedReport, Family, InsertedReport, LandedChange, MatchFailure, MultiEditedReport, MutationReport, StaleCall, StaleRefusal, StepReport, WrittenReport,
} from './report'
export { aroundChange, cutNote, nothingDone, numbered, numberList, plural, type RenderLimits, spanWords } from './render'
export { MULTI_EDIT_SNIPPETS, renderReport } from './render-report'
export { renderMatchFailure, renderStale } from './render-refusal'
export {
  PATCH_SNIPPETS, type PatchFileReport, type PatchHunkFailure, type PatchPartial, type PatchSectionProblem, patchProblemText, renderPatchHunkFailure, renderPatchPartial, renderPatchRefusal, renderPatchReport,
} from './render-patch'
export { LineIndex, type Checkpoint, type LineIndexOptions } from './line-index'
export { skipLines, skipLinesIndexed, type PagedTarget } from './paging'
export { discoveryRoot, inspectPath, mutationTarget, resolveTarget } from './paths'
export { type PathForm, pathForm, PathFormRefused, type PathFormRefusal, pathFormRefusal, pathFormText, pathFormWords } from './path-form'
export { countTargetLines, lineFromEnd } from './from-end'
export { derivation, editedObservation, seenOfWindow } from './seen'
export { renderNotSeen } from './render-unseen'
export { readNotes, viewNotes } from './notes'
export { type Printed, type PrintedCall, printedIn, printedRefusal, renderPrinted } from './printed'
export { type FileRefusal, renderRefusal } from './refusal'
export {
  type DiscoveryToolName, type FailureDetail, fsRefused, type FsRefusal, type FsToolName, renderFsRefusal,
} from './refusal-fs'
export { type ArgumentProblem, type ArgumentRefusal, argumentRefused, printedProblem } from './refusal-argument'
export { type EditorCommand, editorRefused, type EditorRefusal, type EditorStop } from './refusal-editor'
export { type PatchRefusal, patchRefused, type PatchSectionRef, type PatchStop } from './refusal-patch'
export { identicalText, linkedText } from './refusal-words'
export { PATCH_MARKERS, type PatchSyntaxProblem, patchSyntaxText } from './patch-syntax'
export {
  decodingOf, ENCODING_ARGUMENT, type EncodingConfig, type EncodingHooks, encodingNote, encodingRemedy, observe, readOptions, SUPPORTED_ENCODINGS, textDecodingOf, textUnderDecoding,
  undecidedRemedy, UNENCODABLE_REMEDY, withEncodings,
} from './encoding'
export {
  type ImageShown, type PageArgument, type PdfPageText, type PdfShown, type Pixels, renderImageShown, renderMediaInvalid, renderMediaTooLarge, renderPdfPages, renderPdfPassword, renderPdfRange, renderPdfTooCostly, type PdfCost,
  renderTooManyPixels,
} from './render-media'
export { MEDIA_NAMES, MEDIA_TYPES, type MediaKind, mediaKindOf, namedAsMedia } from './media-kind'
// Images and PDFs as a read shows them: one implementation for both tool families.
export { DEFAULT_MEDIA_LIMITS, MediaConfig, type MediaLimits } from './media/config'
export { fetchMedia, mediaObservation, type MediaOptions, showMedia } from './media/show'
export { PdfThreads } from './media/pdf-worker'
