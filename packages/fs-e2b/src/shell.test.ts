import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { controlCommand, SENTINEL, scriptOutput, shellQuote } from './shell'

const run = promisify(execFile)

// The commands are checked with the local bash, exactly as the sandbox's `bash -l -c` gets them.
async function bashArgs(args: string[]): Promise<string[]> {
  const script = `printf '${SENTINEL}'; for a in "$@"; do printf '%s\\0' "$a"; done`
  const { stdout } = await run('bash', ['-c', controlCommand(script, args)])
  return scriptOutput(stdout)!.split('\0').slice(0, -1)
}

describe('control commands', () => {
  it('passes every argument through verbatim, whatever quotes, dollars or newlines it holds', async () => {
    const hostile = ["it's", '$(touch /tmp/dsh-pwned)', '`id`', 'a b\tc\nd', '"double"', '\\back\\slash', "'';rm -rf ~;''", '-n', '*']
    expect(await bashArgs(hostile)).toEqual(hostile)
  })

  it('quotes a word so that the shell reads it back unchanged', async () => {
    for (const word of ["'", "''", "a'b'c", '', '$HOME', '!']) {
      const { stdout } = await run('bash', ['-c', `printf %s ${shellQuote(word)}`])
      expect(stdout).toBe(word)
    }
  })

  it('runs the script without the caller\'s environment and with the status table defined', async () => {
    const script = `printf '${SENTINEL}%s|%s|%s' "\${SECRET-unset}" "$LC_ALL" "$STALE"`
    const { stdout } = await run('bash', ['-c', controlCommand(script, [])], { env: { ...process.env, SECRET: 'leaked' } })
    expect(scriptOutput(stdout)).toBe('unset|C|84')
  })

  it('finds the script output after anything a profile printed first', () => {
    expect(scriptOutput(`profile noise\n${SENTINEL}payload`)).toBe('payload')
    expect(scriptOutput('no sentinel at all')).toBeUndefined()
  })
})
