// What providers (and tools) outside this package build on: the shared text, edit, guard, lock,
// memory and discovery algorithms, so that no provider writes its own copy. Only what a package
// outside `dsh-fs` imports is here (checked by `tests/kit-exports.spec.ts`); the rest of the
// modules stay internal. Each name is documented where it is declared.
export { ForwardingFileSystem, type FsBackend } from './forward'
export { composedRename } from './compose'
export { throwIfAborted } from './errors'
export { BINARY_SNIFF_BYTES, decodeText, Utf8StreamDecoder } from './decode'
export { readOptionsOf } from './decoding'
export { UTF8_BOM } from './utf8'
export { dominantLineEnding, normalizeLineEndings } from './line-endings'
export { type TextStyle, TextStyleProbe } from './style'
export { changedRegion } from './lines'
export {
  checkWriteSize, editOutcome, planEdit, planEdits, type PlannedEdit, type PlannedEdits, type PlannedWrite, planStyledWrite, planWrite, writeCost,
} from './plan'
export { checkEditGuard, checkMoveDestination, checkRemoveGuard, checkWriteGuard, describeEntry } from './guards'
export { publishGuarded } from './publish'
export { KeyedLock } from './lock'
export { EDIT_COST_PER_BYTE, MemoryBudget, processMemoryBudget, TEXT_COST_PER_BYTE } from './budget'
export { editReservation, planReserved, Reservation } from './reservation'
export { cutListing, listingWindow, toListing } from './listing'
export { loadLinearEngine } from './linear'
export { compileRegex, type LineMatcher, MAX_REGEX_LINE } from './regex'
export { globBase } from './patterns'
export { collectWalk, type TreeEntry, type TreeSource, visitTree } from './walk'
export { DEFAULT_SEARCH_MAX_FILE_BYTES, SearchCollector } from './search'
export { applyEdits } from './multi-edit'
export { DEFAULT_MAX_TEXT_BYTES, FS_MAX_EDITS } from './limits'
export { escapeName } from './names'
export { firstUnseen, seenAll, seenCarried, seenEverything, seenLineCount, seenUnion } from './seen'
export { utf16Bom } from './encodings'
