import { type FsEditOptions, type FsEditOutcome, type FsTarget, type FsTextDecoding, type FsVersion, type FsWriteIntent, type FsWriteOptions, type FsWriteOutcome, fsError } from '@deepseek-ai/dsh-fs'
import {
  checkEditGuard, checkWriteGuard, checkWriteSize, editOutcome, editReservation, type PlannedEdit, type PlannedEdits, type PlannedWrite, planReserved,
  planStyledWrite, planWrite, publishGuarded, Reservation, writeCost,
} from '@deepseek-ai/dsh-fs/kit'
import { basename } from 'node:path'
import { endWrite, LostRace, type PublishMode, publishWrite, stageWrite, type StagedWrite } from './publication'
import type { StagedText } from './write-content'
import { checkReal } from './identity'
import type { DiskCore } from './local-disk'
import { mapErrors } from './errors'
import { detachedLinks, find, type Found, inspectStyle, readAll } from './probe'
import { isStagingName } from './staging'

const ATTEMPTS = 5

/** The names dsh stages under are its own: a write to one would be swept away or hidden. */
export function refuseStagingName(target: FsTarget): void {
  if (isStagingName(basename(target.targetKey))) throw fsError('FS_INVALID_PATH', { path: target.displayPath, reason: 'has a name dsh reserves for its own staging files' })
}

/** An unguarded mutation that loses a race with another process starts over; a guarded one is stale. */
export const retryUnguarded = (expected: unknown) => (error: unknown, attempt: number) => error instanceof LostRace && expected === undefined && attempt < ATTEMPTS

/** Closes what a finished mutation held once the answer is on its way. */
export const closeSoon = (found: Found): void => void setImmediate(() => void found.close())

interface WriteProbe {
  found: Found
  planned: Promise<PlannedWrite>
  release: () => void
}

export function writeTarget(core: DiskCore, target: FsTarget, content: string, { expected, signal, hooks, decoding }: FsWriteOptions): Promise<FsWriteOutcome> {
  const display = target.displayPath
  const mode: PublishMode = expected === undefined ? 'replace-any' : expected.kind === 'createIfAbsent' ? 'create' : 'replace-at-version'
  return core.lock.run(target.targetKey, () => mapErrors('write', display, async () => {
    refuseStagingName(target)
    // At most 3 bytes a UTF-16 unit: when that fits, no exact count (a pass as long as the encoding,
    // 25 % of a 1 MiB create); the budget gets the units (a large text is encoded in slices, never whole).
    const contentBytes = content.length * 3 <= core.options.maxTextBytes ? content.length : checkWriteSize(content, core.options.maxTextBytes, display)
    return publishGuarded<WriteProbe, StagedWrite, FsWriteOutcome>({
      path: display,
      signal,
      probe: () => probeWrite(core, target, content, contentBytes, expected, signal, decoding),
      stage: ({ found, planned }) => stageWrite(core, found, planned.then(stagedContent), display),
      publish: async ({ found, planned }, made) => {
        const plan = await planned
        const operation = found.probe.kind === 'absent' ? 'create' as const : 'update' as const
        const outcome = (version: FsVersion): FsWriteOutcome => ({ operation, version, before: plan.before, after: plan.after, ...detachedLinks(found.probe) })
        const published = hooks?.published
        return outcome(await publishWrite(core, found, made, mode, display, published && ((version) => published(outcome(version)))))
      },
      cleanup: async ({ found, release }, made) => {
        await endWrite(core.process.calls, made)
        release()
        closeSoon(found)
      },
      retry: retryUnguarded(expected),
    })
  }))
}

/** The probe of a write: the guard, the memory, and the plan (`planOverwrite`), which runs while the staging is made. */
async function probeWrite(core: DiskCore, target: FsTarget, content: string, contentBytes: number, expected: FsWriteIntent | undefined, signal?: AbortSignal, decoding?: FsTextDecoding): Promise<WriteProbe> {
  const display = target.displayPath
  const found = await find(core, target, display)
  const { probe: current } = found
  const { diffMaxBytes } = core.options
  let release = () => {}
  try {
    try {
      checkWriteGuard(current.kind === 'absent' ? undefined : current.info, expected, display)
    } catch (error) {
      // An unanchored parent was not checked yet: being outside the root is the first answer.
      if (found.anchor === undefined) await checkReal(core, target)
      throw error
    }
    const readBefore = current.kind === 'file' && current.info.size! <= diffMaxBytes ? current.info.size! : 0
    release = await core.budget.reserve(writeCost(contentBytes, readBefore), 'writing', display, signal)
  } catch (error) {
    release()
    void found.close()
    throw error
  }
  const planned = planOverwrite(core, current, content, display, decoding)
  planned.catch(() => {})
  return { found, planned, release }
}

/** `planEdit` or `planEdits` within `held` bytes of memory (`MemoryShortfall` when a step needs more). */
export type EditPlanner = (bytes: Uint8Array, held: number) => PlannedEdit | PlannedEdits

interface EditProbe {
  found: Found
  version: FsVersion
  planning: Promise<{ plan: PlannedEdit | PlannedEdits; outcome: ReturnType<typeof editOutcome> }>
  memory: Reservation
}

export function editTarget(core: DiskCore, target: FsTarget, plan: EditPlanner, { expected, signal, hooks }: FsEditOptions): Promise<FsEditOutcome> {
  const display = target.displayPath
  return core.lock.run(target.targetKey, () => mapErrors('edit', display, async () => {
    refuseStagingName(target)
    return publishGuarded<EditProbe, StagedWrite | undefined, FsEditOutcome>({
      path: display,
      signal,
      probe: () => probeEdit(core, target, plan, expected, signal),
      // A failed match is the answer and the staging goes. An edit that changes no byte publishes
      // nothing (the bytes decode exactly, UTF-8 or legacy: unchanged exactly when the text is).
      stage: async ({ found, planning }) => {
        const made = stageWrite(core, found, planning.then(({ plan }) => stagedContent(plan)), display)
        const planned = await planning.catch(() => undefined)
        if (planned === undefined || planned.plan.after !== planned.plan.before) return made
        await endWrite(core.process.calls, await made)
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
        await endWrite(core.process.calls, made)
        memory.release()
        closeSoon(found)
      },
      retry: retryUnguarded(expected),
    })
  }))
}

/** The probe of an edit: the guard before any matching (a stale edit never reports a match error), then the read and match, while the staging is made. */
async function probeEdit(core: DiskCore, target: FsTarget, plan: EditPlanner, expected: { version: FsVersion } | undefined, signal?: AbortSignal): Promise<EditProbe> {
  const display = target.displayPath
  const found = await find(core, target, display)
  const { probe: current } = found
  const memory = new Reservation(core.budget, 'editing', display, signal)
  try {
    if (found.anchor === undefined && current.kind !== 'file') await checkReal(core, target)
    checkEditGuard(current.kind === 'absent' ? undefined : current.info, expected, display)
    if (current.kind !== 'file') throw fsError('FS_NOT_REGULAR_FILE', { path: display })
    const { diffMaxBytes, maxTextBytes } = core.options
    await memory.ensure(editReservation(current.info.size!, maxTextBytes, core.budget.capacity))
    const planning = readAll(current.opened, maxTextBytes, display).then(async (bytes) => {
      const planned = await planReserved(memory, (held) => plan(bytes, held))
      return { plan: planned, outcome: editOutcome(planned, bytes.length <= diffMaxBytes) }
    })
    planning.catch(() => {})
    return { found, version: current.info.version, planning, memory }
  } catch (error) {
    memory.release()
    void found.close()
    throw error
  }
}

/** What staging writes of a plan: UTF-8 is encoded as it is written; a file in another encoding has its bytes encoded already. */
function stagedContent(plan: PlannedWrite): Uint8Array | StagedText {
  return plan.encoding === undefined ? { text: plan.after, bom: plan.bom } : plan.bytes
}

/**
 * What a write over `current` publishes. The old text is read whole only when reported (`before`, up
 * to `diffMaxBytes`) or when the caller's `decoding` must judge a non-UTF-8 file; else only its style.
 */
function planOverwrite(core: DiskCore, current: Found['probe'], content: string, display: string, decoding: FsTextDecoding | undefined): Promise<PlannedWrite> {
  const { diffMaxBytes, maxTextBytes } = core.options
  if (current.kind !== 'file') return Promise.resolve(planWrite(null, content, display))
  const whole = () => readAll(current.opened, maxTextBytes, display).then((bytes) => planWrite(bytes, content, display, decoding))
  if (current.info.size! <= diffMaxBytes) return whole()
  return inspectStyle(current.opened, content).then((style) => style === null && decoding !== undefined ? whole() : planStyledWrite(style, content))
}
