/**
 * A small reference model of the seed rules (the event-gate and absence-observation design notes):
 * what each session last observed of each path (unseen, absent, or present at a generation), what
 * each tool call must answer, and what the disk must hold afterwards. Generations stand in for
 * provider versions: every change to a path, by a tool or by the outside world, makes a new one.
 */
export type Observation = { kind: 'present'; generation: number } | { kind: 'absent' }

export interface Answer {
  /** The expected error code, or undefined for success. */
  code?: string
}

export class SeedModel {
  files = new Map<string, string>()
  generations = new Map<string, number>()
  observed = [new Map<string, Observation>(), new Map<string, Observation>()]
  #next = 1

  #changed(path: string, content: string): number {
    const generation = this.#next++
    this.files.set(path, content)
    this.generations.set(path, generation)
    return generation
  }

  /** read: a file is observed present at its generation; a miss is observed absent. */
  read(session: number, path: string): Answer {
    const content = this.files.get(path)
    if (content === undefined) {
      this.observed[session]!.set(path, { kind: 'absent' })
      return { code: 'FS_NOT_FOUND' }
    }
    this.observed[session]!.set(path, { kind: 'present', generation: this.generations.get(path)! })
    return {}
  }

  /** write: unseen or absent may only create (never clobber); present may replace only at its generation. */
  write(session: number, path: string, content: string): Answer {
    const seen = this.observed[session]!.get(path)
    const exists = this.files.has(path)
    if (seen?.kind !== 'present') {
      if (exists) return { code: 'FS_NOT_OBSERVED' }
    } else if (!exists || this.generations.get(path) !== seen.generation) {
      return { code: 'FS_STALE_VERSION' }
    }
    this.observed[session]!.set(path, { kind: 'present', generation: this.#changed(path, content) })
    return {}
  }

  /** edit: needs a present observation at the current generation, then exactly one match (or replace_all). */
  edit(session: number, path: string, oldString: string, newString: string, replaceAll: boolean): Answer {
    const seen = this.observed[session]!.get(path)
    if (seen === undefined) return { code: 'FS_NOT_OBSERVED' }
    // Remembered absent: "does not exist" only if nothing is there now; a file created since is a stale basis.
    if (seen.kind === 'absent') return { code: this.files.has(path) ? 'FS_STALE_VERSION' : 'FS_NOT_FOUND' }
    const content = this.files.get(path)
    if (content === undefined || this.generations.get(path) !== seen.generation) return { code: 'FS_STALE_VERSION' }
    const count = content.split(oldString).length - 1
    if (count === 0) return { code: 'FS_EDIT_NOT_FOUND' }
    if (count > 1 && !replaceAll) return { code: 'FS_AMBIGUOUS_EDIT' }
    const at = content.indexOf(oldString)
    const next = replaceAll ? content.split(oldString).join(newString) : content.slice(0, at) + newString + content.slice(at + oldString.length)
    this.observed[session]!.set(path, { kind: 'present', generation: this.#changed(path, next) })
    return {}
  }

  externalWrite(path: string, content: string): void {
    this.#changed(path, content)
  }

  externalDelete(path: string): void {
    this.files.delete(path)
    this.generations.delete(path)
  }

  /** A rename moves the content; the destination gets a new identity (another inode). */
  externalRename(from: string, to: string): boolean {
    const content = this.files.get(from)
    if (content === undefined || from === to) return false
    this.externalDelete(from)
    this.#changed(to, content)
    return true
  }
}
