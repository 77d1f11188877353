/** One reason the config cannot run, said about one entry of it. */
export interface EntryProblem {
  id: string
  name: string
  message: string
  /** The thrown value behind the message, if any (its own log line is then redundant). */
  error?: unknown
}

/**
 * The failure report of `dsh start`: one line per broken entry, naming it by id and package,
 * then what to do. Written for a person reading a terminal or an MCP client's server log.
 */
export function formatProblems(configFile: string, problems: EntryProblem[], unexpected: unknown[]): string {
  const lines = [`dsh: cannot start ${configFile}`]
  for (const problem of problems) {
    lines.push(problem.id === '-' ? `  ${problem.message}` : `  entry "${problem.id}" (${problem.name}) ${problem.message}`)
  }
  for (const reason of unexpected) {
    lines.push(`  unexpected error while loading: ${reason instanceof Error ? reason.message : String(reason)}`)
  }
  // The server a client may already have reached is stopped with the rest: say so, not "tools: (none)".
  if (problems.some((problem) => problem.id !== '-')) lines.push('  no tools are served: dsh stops rather than serve part of the config')
  lines.push('Fix the config and run dsh start again; the config file was not modified.')
  return lines.join('\n') + '\n'
}
