import { plural } from './render'

/*
 * The lines both families print around numbered file text: the notes of `read` and the header
 * and continuation of `view` (the cut note is `cutNote` in render.ts). They are written here once,
 * so that `printed.ts` can recognise them in text a model sends back from the very same functions.
 */

export const readNotes = {
  shownFrom: (line: number, column: number) => `[Line ${line} is shown from character ${column}.]`,
  continues: (first: number, last: number, total: number | undefined, next: number) =>
    `[Showing lines ${first}-${last}${total === undefined ? '' : ` of ${total}`}; the file continues. To read more, call the dsh \`read\` tool with offset=${next}.]`,
  budget: (first: number, last: number, total: number | undefined, limit: string, next: number) =>
    `[Showing lines ${first}-${last}${total === undefined ? '' : ` of ${total}`}: the output reached the ${limit} limit. `
    + `To read more, call the dsh \`read\` tool with offset=${next}.]`,
  endOfFile: (total: number) => `[End of file: ${plural(total, 'line')}.]`,
}

export const viewNotes = {
  header: (path: string) => `Here's the result of running \`cat -n\` on ${path}:`,
  outputCut: (why: string, next: number, end: number) => `[Output cut at ${why}. To see more, view again with view_range [${next}, ${end}].]`,
}
