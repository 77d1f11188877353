/** The largest text `planEdit` builds unless told otherwise (the local provider's default `maxTextBytes`). */
export const DEFAULT_MAX_TEXT_BYTES = 256 * 1024 * 1024

/** The most edits one `applyEdits` (one `editTextMany`, one `multi_edit` call) takes. */
export const FS_MAX_EDITS = 1000

/**
 * The most text, in UTF-16 units summed over the steps, that one `applyEdits` matches against.
 * Each step searches the whole text as it then is, on the event loop, so this bounds how long one
 * call can hold it whatever its number of edits and its file's size.
 */
export const FS_MAX_EDIT_WORK = 256 * 1024 * 1024

/**
 * The most replacements one call (`editText`, or all the steps of one `editTextMany`) makes. Each
 * costs its own time and memory on the event loop (about a microsecond, and the offsets kept),
 * beyond what the size of the text bounds.
 */
export const FS_MAX_REPLACEMENTS = 1_000_000
