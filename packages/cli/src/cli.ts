import { parseArguments } from './arguments'
import { HELP } from './help'
import type { StdioFront } from './stdio-front'
import { version } from './version'

export { DEFAULT_CONFIG, parseArguments } from './arguments'

/** Runs one `dsh` invocation and returns its exit status. */
export async function main(argv: readonly string[], early: { front?: StdioFront | undefined } = {}): Promise<number> {
  const parsed = parseArguments(argv)
  switch (parsed.command) {
    case 'help':
      process.stdout.write(HELP)
      return 0
    case 'version':
      process.stdout.write(`${version}\n`)
      return 0
    case 'usage':
      process.stderr.write(`dsh: ${parsed.message}\nRun dsh --help for usage.\n`)
      return 2
    case 'demo': {
      // Loaded on demand: `dsh start` should not pay for importing the demo's plugins itself.
      const { demo } = await import('./demo')
      return demo()
    }
    case 'setup': {
      const { setup } = await import('./setup/setup')
      return setup(parsed)
    }
    case 'doctor': {
      const { doctor } = await import('./setup/doctor')
      return doctor()
    }
    case 'start': {
      const { start } = await import('./start')
      return start({ ...parsed, front: early.front })
    }
  }
}
