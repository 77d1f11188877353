import { refuse, ToolError, type ToolRefusal } from '@deepseek-ai/dsh-tools'

/**
 * Paths as models write them out of habit from shells, editors and other operating systems: `~` for
 * the home directory, `\` as the separator, a `file://` URL. dsh takes none of them (it is not a
 * shell, and on POSIX `\` is a character of a name), so taken literally they name a file nobody
 * meant: `<root>/~/notes.md`, a file called `src\util.js`. Each form is recognised here, once, with
 * the path it most likely stands for.
 */
export type PathForm =
  | { kind: 'home'; meant: string }
  | { kind: 'backslash'; meant: string }
  | { kind: 'file-url'; meant: string }

/** The foreign form of `path`, if it has one, and the dsh path it stands for. */
export function pathForm(path: string): PathForm | undefined {
  const url = /^file:(?:\/\/(?:localhost)?)?(\/.*)$/i.exec(path)
  if (url !== null) return { kind: 'file-url', meant: decoded(url[1]!).replace(/^\/([A-Za-z]:)/, '$1') }
  // `~` and `~/x`: the home directory of a shell. The workspace is where a model means to work, so
  // the rest is taken relative to the working directory. `~user` is left alone.
  if (path === '~' || path.startsWith('~/') || path.startsWith('~\\')) {
    const rest = path.slice(2).replace(/\\/g, '/')
    return { kind: 'home', meant: rest === '' ? '.' : rest }
  }
  if (path.includes('\\')) return { kind: 'backslash', meant: path.replace(/\\/g, '/') }
  return undefined
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/** What the form is, in the words the refusal uses. */
export function pathFormWords(path: string, form: PathForm): string {
  switch (form.kind) {
    case 'home': return `\`${path}\` starts with ~, a shell's home directory, which dsh does not expand`
    case 'backslash': return `\`${path}\` separates its parts with \\, which is part of a file name here, not a separator`
    case 'file-url': return `\`${path}\` is a file:// URL, not a path`
  }
}

/**
 * The refusal of a path in a foreign form: what the form is, then the call again with the path it
 * most likely means (shown as the tools show paths), or why there is none.
 */
export function pathFormText(path: string, form: PathForm, argument: string, meant: { path: string; exists: boolean } | { outside: true }): string {
  const head = `${pathFormWords(path, form)}; nothing was done.`
  if ('outside' in meant) return `${head} The path it stands for, ${form.meant}, is outside the root: use a path inside the workspace.`
  const exists = meant.exists ? ' (it exists)' : ''
  return `${head} The path you most likely mean is ${meant.path}${exists}: call again with ${argument}=\`${meant.path}\`.`
}

/** A path in a foreign form, refused before any provider call, as data: `renderRefusal` words it. */
export interface PathFormRefusal {
  pathForm: {
    path: string
    form: PathForm
    /** The argument that carried it: `file_path` or `path`. */
    argument: string
    meant: { path: string; exists: boolean } | { outside: true }
  }
}

/**
 * The path-form refusal, thrown from the path helpers to the tool that called them, which returns it
 * as its refusal value (`pathFormRefusal`). A `ToolError` with the code, whose message is the data,
 * so that one no tool catches still reaches the model with its code.
 */
export class PathFormRefused extends ToolError {
  constructor(code: 'FS_INVALID_PATH' | 'FS_OUTSIDE_ROOT', readonly refused: PathFormRefusal) {
    super(code, JSON.stringify(refused))
  }

  static override is(value: unknown): value is PathFormRefused {
    return ToolError.is(value) && typeof (value as { refused?: { pathForm?: unknown } }).refused?.pathForm === 'object'
  }
}

/** The refusal value a tool returns for a path-form refusal its path helper threw; `undefined` for any other error. */
export function pathFormRefusal(error: unknown): ToolRefusal<PathFormRefusal> | undefined {
  return PathFormRefused.is(error) ? refuse(error.code, error.refused) : undefined
}

export function renderPathFormRefusal({ pathForm: { path, form, argument, meant } }: PathFormRefusal): string {
  return pathFormText(path, form, argument, meant)
}
