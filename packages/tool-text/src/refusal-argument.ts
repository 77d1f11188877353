import { refuse, type ToolRefusal } from '@deepseek-ai/dsh-tools'
import { type Printed, type PrintedCall, printedIn, renderPrinted } from './printed'
import { identicalText } from './refusal-words'
import type { Family } from './report'

/** An argument refused before anything is asked of the file, in either family. */
export type ArgumentProblem =
  /** What `read`/`view` printed (line numbers, notes) found in text about to be written. */
  | { kind: 'printed'; printed: Printed; call: PrintedCall }
  /** old and new text are the same; `step` names the edit of a multi_edit. */
  | { kind: 'identical'; family: Family; step?: number }

export interface ArgumentRefusal {
  argument: ArgumentProblem
}

export function argumentRefused(argument: ArgumentProblem): ToolRefusal<ArgumentRefusal> {
  return refuse('INVALID_ARGUMENTS', { argument })
}

/**
 * The printed lines in `text` as a problem, or undefined; when the quoted text (old_string) holds
 * line numbers too, both arguments are named.
 */
export function printedProblem(text: string, call: PrintedCall, quoted?: { argument: string; text: string }): ArgumentProblem | undefined {
  const printed = printedIn(text)
  if (printed === undefined) return undefined
  const both = printed.kind === 'line-numbers' && quoted !== undefined && printedIn(quoted.text)?.kind === 'line-numbers'
  return { kind: 'printed', printed, call: both ? { ...call, argument: `${quoted.argument} and ${call.argument}` } : call }
}

export function renderArgumentRefusal({ argument }: ArgumentRefusal): string {
  return argument.kind === 'printed' ? renderPrinted(argument.printed, argument.call) : identicalText(argument.family, argument.step)
}
