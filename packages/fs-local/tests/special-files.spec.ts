import { FsError } from '@deepseek-ai/dsh-fs'
import { expectFsError } from '@deepseek-ai/dsh-fs/conformance'
import { linkSync, renameSync } from 'node:fs'
import { readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { localFixture, run } from './fixture'

/** Fails if `promise` is still pending after `ms`: the point of these tests is that nothing blocks. */
async function promptly<T>(promise: Promise<T>, ms = 2000): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`blocked for ${ms} ms`)), ms)))
  try {
    return await Promise.race([promise, late])
  } finally {
    clearTimeout(timer)
  }
}

async function drain(stream: AsyncIterable<string>): Promise<string> {
  let text = ''
  for await (const chunk of stream) text += chunk
  return text
}

describe('special files', () => {
  it('refuses /dev/zero promptly for readText, streamText and editText', async () => {
    const fixture = await localFixture()
    const zero = await fixture.fs.resolve('/dev/zero')
    expect(await fixture.fs.stat(zero)).toMatchObject({ type: 'other' })
    await promptly(expectFsError(fixture.fs.readText(zero), 'FS_NOT_REGULAR_FILE'))
    await promptly(expectFsError(drain(fixture.fs.streamText(zero)), 'FS_NOT_REGULAR_FILE'))
    await promptly(expectFsError(fixture.fs.editText(zero, { oldString: 'a', newString: 'b', replaceAll: false }), 'FS_NOT_REGULAR_FILE'))
    await fixture.dispose()
  })

  it('never replaces a device node it is asked to write', async () => {
    const fixture = await localFixture()
    await run('mknod', [join(fixture.dir, 'null'), 'c', '1', '3'])
    const target = await fixture.fs.resolve('null')
    await promptly(expectFsError(fixture.fs.writeText(target, 'x'), 'FS_NOT_REGULAR_FILE'))
    await promptly(expectFsError(fixture.fs.writeText(target, 'x', { expected: { kind: 'createIfAbsent' } }), 'FS_NOT_REGULAR_FILE'))
    expect((await stat(join(fixture.dir, 'null'))).isCharacterDevice()).toBe(true)
    await fixture.dispose()
  })

  it('never blocks when a FIFO is swapped in between the type check and the open', async () => {
    const fixture = await localFixture()
    const file = join(fixture.dir, 'file.src')
    const fifo = join(fixture.dir, 'fifo.src')
    const name = join(fixture.dir, 'swapped')
    await writeFile(file, 'regular text')
    await run('mkfifo', [fifo])
    linkSync(file, name)
    const target = await fixture.fs.resolve('swapped')
    // Flip the name between the file and the FIFO every millisecond while reads run:
    // reads whose stat saw the file can find the FIFO at open time.
    let flips = 0
    let stop = false
    const flipper = (async () => {
      while (!stop) {
        const source = flips++ % 2 === 0 ? fifo : file
        linkSync(source, `${name}.next`)
        renameSync(`${name}.next`, name)
        await new Promise((resolve) => setTimeout(resolve, 1))
      }
    })()
    const outcomes: unknown[] = []
    // Until both outcomes were seen (a loaded machine may need many reads for a text one), bounded.
    const seenBoth = () => outcomes.some((o) => typeof o === 'string') && outcomes.some((o) => typeof o !== 'string')
    const reader = async () => {
      for (let i = 0; i < 250 && !(i >= 25 && seenBoth()); i++) {
        outcomes.push(await fixture.fs.readText(target).then((text) => text, (error: unknown) => error))
        // A refusal can be answered from inline lookups alone (no thread-pool trip): let the flipper run.
        await new Promise((resolve) => setImmediate(resolve))
      }
    }
    await promptly(Promise.all(Array.from({ length: 16 }, reader)), 20_000)
    console.info(`swap test: ${outcomes.filter((o) => typeof o === 'string').length} reads of text, ${flips} flips`)
    stop = true
    await flipper
    for (const outcome of outcomes) {
      if (typeof outcome === 'string') expect(outcome).toBe('regular text')
      else expect(FsError.is(outcome, 'FS_NOT_REGULAR_FILE'), String(outcome)).toBe(true)
    }
    expect(outcomes.some((outcome) => typeof outcome === 'string')).toBe(true)
    expect(outcomes.some((outcome) => typeof outcome !== 'string')).toBe(true)
    expect(await readFile(file, 'utf8')).toBe('regular text')
    await fixture.dispose()
  })
})
