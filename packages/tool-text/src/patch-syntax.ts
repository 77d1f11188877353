/*
 * Codex's patch format: its markers, and why a text is not in it, in the words `apply_patch`'s
 * refusal gives. The parser (dsh-tool-fs `src/patch/parse.ts`) finds the problem; it is worded here.
 */

export const PATCH_MARKERS = {
  begin: '*** Begin Patch',
  end: '*** End Patch',
  add: '*** Add File: ',
  delete: '*** Delete File: ',
  update: '*** Update File: ',
  move: '*** Move to: ',
  endOfFile: '*** End of File',
} as const

/** What is wrong at one line of a patch. `line` fields are the patch's own text at that line. */
export type PatchSyntaxProblem =
  | { kind: 'too-long'; chars: number; max: number }
  | { kind: 'too-many-files'; files: number; max: number }
  | { kind: 'no-begin' }
  | { kind: 'no-end' }
  | { kind: 'not-a-header'; line: string }
  | { kind: 'add-line'; line: string; path: string }
  | { kind: 'no-hunk'; path: string }
  | { kind: 'no-path'; marker: string }
  | { kind: 'misplaced-end-of-file' }
  | { kind: 'not-a-hunk-line'; line: string }
  | { kind: 'missing-at-at' }
  | { kind: 'empty-hunk' }

const { begin, end, add, delete: remove, update, endOfFile } = PATCH_MARKERS

export function patchSyntaxText(problem: PatchSyntaxProblem): string {
  switch (problem.kind) {
    case 'too-long': return `the patch is ${problem.chars} characters long; at most ${problem.max} are accepted. Split it into several patches`
    case 'too-many-files': return `the patch changes ${problem.files} files; at most ${problem.max} are accepted in one patch. Split it into several patches`
    case 'no-begin': return `the first line of the patch must be '${begin}'`
    case 'no-end': return `the last line of the patch must be '${end}'`
    case 'not-a-header': return `'${clip(problem.line)}' is not a section header; a section starts with '${add}<path>', '${remove}<path>' or '${update}<path>'`
    case 'add-line': return `'${clip(problem.line)}' is in the Add File section for '${problem.path}', whose every line starts with '+'`
    case 'no-hunk': return `the Update File section for '${problem.path}' has no hunk: add '@@' followed by the lines to change, or leave the file out`
    case 'no-path': return `'${problem.marker.trim()}' names no path`
    case 'misplaced-end-of-file': return `'${endOfFile}' must end a hunk that has lines`
    case 'not-a-hunk-line': return `'${clip(problem.line)}' is not a hunk line: every line of a hunk starts with ' ' (context), '-' (removed) or '+' (added)`
    case 'missing-at-at': return 'a hunk after the first one must start with an @@ line'
    case 'empty-hunk': return 'this hunk has no lines: after its @@ line, give the lines to change, each starting with \' \', \'-\' or \'+\''
  }
}

function clip(line: string): string {
  return line.length > 80 ? `${line.slice(0, 77)}...` : line
}
