import { type FsEditOutcome, type FsMutationHooks, type FsTarget, type FsVersion, type FsWriteIntent, type FsWriteOutcome, fsError } from '@deepseek-ai/dsh-fs'
import {
  checkEditGuard, checkWriteGuard, checkWriteSize, EDIT_COST_PER_BYTE, editOutcome, type PlannedEdit, type PlannedEdits, planReserved, planStyledWrite, planWrite,
  publishGuarded, Reservation, writeCost,
} from '@deepseek-ai/dsh-fs/kit'
import { endWrite, LostRace, type PublishMode, publishWrite, stageWrite } from './publication'
import { checkReal, type DiskCore } from './core'
import { mapErrors } from './errors'
import { detachedLinks, find, type Found } from './find'
import { isStagingName } from './staging'
import { inspectStyle, readAll } from './probe'
import { basename } from 'node:path'

const EDIT_ATTEMPTS = 5

/** The names dsh stages under are its own: a write to one would be swept away or hidden. */
export function refuseStagingName(target: FsTarget): void {
  if (isStagingName(basename(target.targetKey))) {
    throw fsError('FS_INVALID_PATH', { path: target.displayPath, reason: 'has a name dsh reserves for its own staging files' })
  }
}

export function writeTarget(core: DiskCore, target: FsTarget, content: string, expected?: FsWriteIntent, signal?: AbortSignal, hooks?: FsMutationHooks<FsWriteOutcome>): Promise<FsWriteOutcome> {
  const display = target.displayPath
  const mode: PublishMode = expected === undefined ? 'replace-any' : expected.kind === 'createIfAbsent' ? 'create' : 'replace-at-version'
  return core.lock.run(target.targetKey, () => mapErrors('write', display, async () => {
    refuseStagingName(target)
    // Refused before anything is opened, reserved or encoded.
    const contentBytes = checkWriteSize(content, core.options.maxTextBytes, display)
    const attempt = await publishGuarded({
      path: display,
      signal,
      probe: async () => {
        const found = await find(core, target, display)
        const { probe: current } = found
        let releaseMemory = () => {}
        try {
          try {
            checkWriteGuard(current.kind === 'absent' ? undefined : current.info, expected, display)
          } catch (error) {
            // An unanchored parent was not checked yet: being outside the root is the first answer.
            if (found.anchor === undefined) await checkReal(core, target)
            throw error
          }
          // The new bytes, and the old text when it is read for `before`, held until published.
          const { diffMaxBytes } = core.options
          const readBefore = current.kind === 'file' && current.info.size! <= diffMaxBytes ? current.info.size! : 0
          releaseMemory = await core.budget.reserve(writeCost(contentBytes, readBefore), 'writing', display, signal)
        } catch (error) {
          releaseMemory()
          void found.close()
          throw error
        }
        // The old text is read whole only when it is reported back (`before`, for diffs); above that
        // bound only its BOM and line-ending style are learned, from as few bytes as possible. The
        // read runs while the publication makes its staging.
        const { diffMaxBytes, maxTextBytes } = core.options
        const planned = current.kind !== 'file'
          ? Promise.resolve(planWrite(null, content, display))
          : current.info.size! <= diffMaxBytes
            ? readAll(current.opened, maxTextBytes, display).then((bytes) => planWrite(bytes, content, display))
            : inspectStyle(current.opened, content).then((style) => planStyledWrite(style, content))
        // Awaited by `stage`; a probe whose stage never runs must not leave its rejection unhandled.
        planned.catch(() => {})
        return { found, planned, releaseMemory }
      },
      stage: ({ found, planned }) => stageWrite(core, found, planned.then((plan) => ({ text: plan.after, bom: plan.bom })), display),
      publish: async ({ found, planned }, made) => {
        // Resolved before staging wrote a byte; awaited here so the outcome is whole when the version is.
        const plan = await planned
        const operation = found.probe.kind === 'absent' ? 'create' as const : 'update' as const
        const links = detachedLinks(found.probe)
        const outcome = (version: FsVersion): FsWriteOutcome => ({ operation, version, before: plan.before, after: plan.after, ...links })
        const published = hooks?.published
        return outcome(await publishWrite(core, found, made, mode, display, published && ((version) => published(outcome(version)))))
      },
      cleanup: async ({ found, releaseMemory }, made) => {
        await endWrite(made)
        releaseMemory()
        // Descriptors are closed in the background: nothing that follows depends on it.
        closeSoon(found)
      },
      // An unguarded write that finds a file created under it starts over and replaces that one.
      retry: (error, attempt) => error instanceof LostRace && expected === undefined && attempt < EDIT_ATTEMPTS,
    })
    return attempt
  }))
}

/**
 * What an edit makes of the old bytes within `held` bytes of memory: `planEdit` for one,
 * `planEdits` for several (each bounded before it builds, `MemoryShortfall` when it needs more).
 */
export type EditPlanner = (bytes: Uint8Array, held: number) => PlannedEdit | PlannedEdits

export function editTarget(core: DiskCore, target: FsTarget, plan: EditPlanner, expected?: { version: FsVersion }, signal?: AbortSignal, hooks?: FsMutationHooks<FsEditOutcome>): Promise<FsEditOutcome> {
  const display = target.displayPath
  return core.lock.run(target.targetKey, () => mapErrors('edit', display, async () => {
    refuseStagingName(target)
    return publishGuarded({
    path: display,
    signal,
    probe: async () => {
      const found = await find(core, target, display)
      const { probe: current } = found
      const memory = new Reservation(core.budget, 'editing', display, signal)
      try {
        // An unanchored parent was not checked yet: being outside the root is the first answer.
        if (found.anchor === undefined && current.kind !== 'file') await checkReal(core, target)
        // The guard runs before any matching: a stale edit never reports a match error.
        checkEditGuard(current.kind === 'absent' ? undefined : current.info, expected, display)
        if (current.kind !== 'file') throw fsError('FS_NOT_REGULAR_FILE', { path: display })
        const { diffMaxBytes, maxTextBytes } = core.options
        // Reserved before the file is read, held until the new bytes are published.
        await memory.ensure(EDIT_COST_PER_BYTE * Math.min(current.info.size!, maxTextBytes))
        // Read and matched while the staging is made (see `stage`); a result larger than the old
        // text waits for its memory before it is built.
        const planning = readAll(current.opened, maxTextBytes, display).then(async (bytes) => {
          const planned = await planReserved(memory, (held) => plan(bytes, held))
          return { plan: planned, outcome: editOutcome(planned, bytes.length <= diffMaxBytes) }
        })
        // Awaited by `stage`; a probe whose stage never runs must not leave its rejection unhandled.
        planning.catch(() => {})
        return { found, version: current.info.version, planning, memory }
      } catch (error) {
        memory.release()
        void found.close()
        throw error
      }
    },
    // The staging is made while the old bytes are read and the edit planned; a failed match is the
    // answer and the staging goes. An edit that changes no byte publishes nothing: the file and its
    // version stay as they are (the bytes were valid UTF-8, so they are unchanged exactly when the text is).
    stage: async ({ found, planning }) => {
      const made = stageWrite(core, found, planning.then(({ plan }) => ({ text: plan.after, bom: plan.bom })), display)
      const planned = await planning.catch(() => undefined)
      if (planned === undefined || planned.plan.after !== planned.plan.before) return made
      await endWrite(await made)
      return undefined
    },
    publish: async ({ found, version, planning }, made) => {
      const { outcome } = await planning
      if (made === undefined) return { version, ...outcome }
      const links = detachedLinks(found.probe)
      const published = hooks?.published
      const settled = published && ((now: FsVersion) => published({ version: now, ...outcome, ...links }))
      return { version: await publishWrite(core, found, made, 'replace-at-version', display, settled), ...outcome, ...links }
    },
    cleanup: async ({ found, memory }, made) => {
      await endWrite(made)
      memory.release()
      closeSoon(found)
    },
    // An unguarded edit that loses a race with another process starts over on the new content;
    // a guarded one is stale by definition.
    retry: (error, attempt) => error instanceof LostRace && expected === undefined && attempt < EDIT_ATTEMPTS,
    })
  }))
}

/**
 * Closes what a finished mutation held once the answer is on its way: the descriptors' closes are
 * handed to the thread pool after the current callbacks, not before the caller hears the outcome.
 */
function closeSoon(found: Found): void {
  setImmediate(() => void found.close())
}
