import { CommandExitError, type Sandbox } from 'e2b'
import { statusAssignments } from './status'

/** Marks where a script's own output starts: anything a login profile printed comes before it. */
export const SENTINEL = '\u001edsh\u001e'

/**
 * The environment of the outer `bash -l` the SDK always starts. A HOME that does not exist means no
 * user profile (`~/.bash_profile`, `~/.profile`) is read; BASH_ENV and ENV are emptied for the same
 * reason. Only the system profile still runs, and the command leaves it at once (see `controlCommand`).
 */
export const CONTROL_ENV: Readonly<Record<string, string>> = {
  HOME: '/nonexistent/dsh-fs-e2b',
  BASH_ENV: '',
  ENV: '',
}

const CLEAN_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'

/** `value` as one single-quoted shell word: nothing inside is expanded, whatever it contains. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`
}

/**
 * The command line that runs `script` with `args` as `$1…`. The outer login shell immediately
 * `exec`s a fresh `bash --noprofile --norc` under `env -i`: no exported functions, aliases or
 * variables from any profile reach the script, PATH is the standard one and the locale is C.
 * Arguments are never interpolated into the script text, only passed as quoted words.
 */
export function controlCommand(script: string, args: readonly string[]): string {
  const body = `${statusAssignments()}\n${script}`
  return [
    'exec /usr/bin/env -i',
    `PATH=${CLEAN_PATH}`,
    'LC_ALL=C',
    '/bin/bash --noprofile --norc -c',
    shellQuote(body),
    'dsh',
    ...args.map(shellQuote),
  ].join(' ')
}

/** The script's own output: what follows the sentinel, or `undefined` when it never got that far. */
export function scriptOutput(stdout: string): string | undefined {
  const at = stdout.indexOf(SENTINEL)
  return at < 0 ? undefined : stdout.slice(at + SENTINEL.length)
}

export interface ControlResult {
  exitCode: number
  /** Output after the sentinel ('' when the script printed nothing of its own). */
  output: string
  stderr: string
}

export interface ControlOptions {
  /** Only for commands that change nothing: a publication, once sent, is never abandoned midway. */
  signal?: AbortSignal
}

/**
 * Runs a control script and returns its exit code instead of throwing on a non-zero one: the
 * exit code is the status table of `status.ts`. Transport failures (the SDK's own errors) throw.
 */
export async function runControl(sandbox: Sandbox, script: string, args: readonly string[], options: ControlOptions = {}): Promise<ControlResult> {
  const command = controlCommand(script, args)
  try {
    const result = await sandbox.commands.run(command, {
      envs: { ...CONTROL_ENV },
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    })
    return { exitCode: result.exitCode, output: scriptOutput(result.stdout) ?? '', stderr: result.stderr }
  } catch (error) {
    if (!(error instanceof CommandExitError)) throw error
    return { exitCode: error.exitCode, output: scriptOutput(error.stdout) ?? '', stderr: error.stderr }
  }
}
