import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * The run's scratch directory under `os.tmpdir()` (a real disk here: fsync costs what it costs).
 * Every input is generated inside it and the whole tree goes at the end of the run.
 */
export class Scratch {
  private constructor(readonly root: string) {}

  static async create(): Promise<Scratch> {
    return new Scratch(await mkdtemp(join(tmpdir(), 'dsh-bench-')))
  }

  /** A fresh empty subdirectory, one per case, so cases never see each other's files. */
  async dir(name: string): Promise<string> {
    const path = join(this.root, name)
    await rm(path, { recursive: true, force: true })
    await mkdir(path, { recursive: true })
    return path
  }

  async remove(): Promise<void> {
    await rm(this.root, { recursive: true, force: true })
  }
}
