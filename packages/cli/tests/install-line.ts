/** The `npm i` line of a README's "Installing" section, split into its arguments. */
export function installLine(readme: string): string[] {
  const section = readme.slice(readme.indexOf('## Installing'))
  const line = /^npm i (.+)$/m.exec(section)?.[1]
  if (line === undefined) throw new Error('no npm i line under ## Installing')
  return line.trim().split(/\s+/)
}
