import { spawn } from 'node:child_process'
import { lstat, mkdir, mkdtemp, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { listenLiveness, selfIdentity } from './liveness'
import { isStagingName, makeStagedFile, makeStaging, parseStagedFileName, parseStagingName, reclaimStaging, releaseStagedFile, removeStaging, STAGING_PREFIX } from './staging'

async function scratch(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'dsh-fs-local-staging-'))
}

/** The pid of a process of this boot and namespace that has exited. */
async function deadPid(): Promise<number> {
  const gone = spawn(process.execPath, ['-e', ''])
  await new Promise((resolve) => gone.once('close', resolve))
  return gone.pid!
}

/** A staging name of a process of this boot and namespace that has exited. */
async function deadName(): Promise<string> {
  const me = selfIdentity()
  return `${STAGING_PREFIX}s.${me.boot}.${me.ns}.${await deadPid()}.1.abcdef`
}

describe('staging names', () => {
  it('round-trips this process\'s identity and is recognised only in its exact shape', async () => {
    const dir = await scratch()
    const staging = await makeStaging(dir)
    const name = staging.dir.slice(dir.length + 1)
    expect(parseStagingName(name)).toEqual({ kind: 's', ...selfIdentity() })
    expect(await readdir(staging.dir)).toEqual(['live'])
    expect(isStagingName(name)).toBe(true)
    expect(isStagingName(`${STAGING_PREFIX}lock.0123456789abcdef`)).toBe(true)
    for (const user of [`${STAGING_PREFIX}notes`, `${STAGING_PREFIX}lock.txt`, `${name}x`, `${STAGING_PREFIX}s.12345678.1.2.3.toolongsuffix`]) {
      expect(isStagingName(user), user).toBe(false)
    }
    await removeStaging(staging)
    expect(await readdir(dir)).toEqual([])
  })
})

describe('staging sweep', () => {
  it('removes a dead writer\'s staging and never a user entry that merely looks like staging', async () => {
    const dir = await scratch()
    const dead = await deadName()
    await mkdir(join(dir, dead), { mode: 0o700 })
    await writeFile(join(dir, dead, 'content'), 'staged')
    // A user's file and directory with the prefix, and entries of the exact name but not our shape.
    const userFile = `${STAGING_PREFIX}xxx`
    const userDir = `${STAGING_PREFIX}notes`
    const openDir = dead.replace('abcdef', 'ghijkl')
    const foreignMember = dead.replace('abcdef', 'mnopqr')
    const plainFile = dead.replace('abcdef', 'stuvwx')
    await writeFile(join(dir, userFile), 'mine')
    await mkdir(join(dir, userDir), { mode: 0o700 })
    await writeFile(join(dir, userDir, 'content'), 'mine too')
    await mkdir(join(dir, openDir), { mode: 0o755 })
    await mkdir(join(dir, foreignMember), { mode: 0o700 })
    await writeFile(join(dir, foreignMember, 'thesis.tex'), 'mine')
    await writeFile(join(dir, plainFile), 'mine')
    // Residue of an earlier version (no PID namespace in its name): removed once its boot is over, kept otherwise.
    const me = selfIdentity()
    const legacyOld = `${STAGING_PREFIX}00000000.${me.pid}.${me.start}.abcdef`
    const legacyNow = `${STAGING_PREFIX}${me.boot}.${2 ** 22 + 1}.1.abcdef`
    for (const name of [legacyOld, legacyNow]) await mkdir(join(dir, name), { mode: 0o700 })
    expect(await reclaimStaging(dir)).toBe(2)
    expect((await readdir(dir)).sort()).toEqual([userFile, userDir, openDir, foreignMember, plainFile, legacyNow].sort())
    expect(await readFile(join(dir, foreignMember, 'thesis.tex'), 'utf8')).toBe('mine')
  })

  it('keeps a live writer\'s staging, judged by its socket when its pid means nothing here', async () => {
    const dir = await scratch()
    const staging = await makeStaging(dir)
    const name = staging.dir.slice(dir.length + 1)
    // The same directory, renamed as if made by a process of another PID namespace: only the socket speaks.
    const me = selfIdentity()
    const foreign = name.replace(`.${me.ns}.${me.pid}.`, '.1.1.')
    const { rename } = await import('node:fs/promises')
    await rename(staging.dir, join(dir, foreign))
    await writeFile(join(dir, foreign, 'content'), 'in flight')
    expect(await reclaimStaging(dir)).toBe(0)
    expect(await readdir(dir)).toEqual([foreign])
    // Closing is what the kernel does when the writer dies: the socket (moved with the directory) now refuses.
    staging.live!.close()
    expect(await reclaimStaging(dir)).toBe(1)
    expect(await readdir(dir)).toEqual([])
  })
  it('keeps a refusing socket of another namespace with nothing written beside it, which may be between bind and listen', async () => {
    const dir = await scratch()
    const me = selfIdentity()
    const name = `${STAGING_PREFIX}s.${me.boot}.1.1.${me.start}.abcdef`
    await mkdir(join(dir, name), { mode: 0o700 })
    const socket = join(dir, name, 'live')
    const child = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(socket)}, () => console.log('up'))`])
    await new Promise((resolve) => child.stdout.once('data', resolve))
    const closed = new Promise((resolve) => child.once('close', resolve))
    child.kill('SIGKILL')
    await closed
    await writeFile(join(dir, name, 'content'), '')
    expect(await reclaimStaging(dir)).toBe(0)
    // Bytes in `content` are only ever written after `listen`: now the refusal is proof.
    await writeFile(join(dir, name, 'content'), 'x')
    expect(await reclaimStaging(dir)).toBe(1)
  })
})

describe('staged files of replacements', () => {
  it('are named for their writer, hidden, and (with no shared socket to link later) made with a socket bound beside them', async () => {
    const dir = await scratch()
    const staged = await makeStagedFile(dir, 0o600)
    const name = staged.file.slice(dir.length + 1)
    expect(parseStagedFileName(name)).toEqual({ ...selfIdentity(), socket: false })
    expect(parseStagedFileName(`${name}.live`)).toEqual({ ...selfIdentity(), socket: true })
    expect(parseStagingName(name)).toBeUndefined()
    expect(isStagingName(name) && isStagingName(`${name}.live`)).toBe(true)
    for (const user of [`${STAGING_PREFIX}f.notes`, `${name}.txt`, `${name}x`]) expect(isStagingName(user), user).toBe(false)
    expect((await readdir(dir)).sort()).toEqual([name, `${name}.live`])
    expect((await lstat(join(dir, `${name}.live`))).isSocket()).toBe(true)
    expect((await lstat(staged.file)).mode & 0o777).toBe(0o600)
    // This process is alive: a sweep keeps both.
    expect(await reclaimStaging(dir)).toBe(0)
    await staged.handle.close()
    await unlink(staged.file)
    await releaseStagedFile(staged)
    expect(await readdir(dir)).toEqual([])
  })

  it('are removed with their socket once their writer is dead, and a socket left alone too', async () => {
    const dir = await scratch()
    const me = selfIdentity()
    const pid = await deadPid()
    const dead = `${STAGING_PREFIX}f.${me.boot}.${me.ns}.${pid}.1.abcdef`
    const lone = `${STAGING_PREFIX}f.${me.boot}.${me.ns}.${pid}.1.ghijkl.live`
    await writeFile(join(dir, dead), 'staged')
    const socket = listenLiveness(join(dir, `${dead}.live`))!
    // A dead writer's socket whose file is gone, and a plain file of a socket's name (not our shape).
    const leftAlone = listenLiveness(join(dir, lone))!
    const plain = dead.replace('abcdef', 'mnopqr')
    await writeFile(join(dir, plain), 'staged too')
    await writeFile(join(dir, `${plain}.live`), 'mine')
    expect(await reclaimStaging(dir)).toBe(3)
    expect(await readdir(dir)).toEqual([`${plain}.live`])
    socket.close()
    leftAlone.close()
  })

  it('of another PID namespace are judged by their socket: kept while it listens, removed once it refuses', async () => {
    const dir = await scratch()
    const staged = await makeStagedFile(dir, 0o600)
    const me = selfIdentity()
    const name = staged.file.slice(dir.length + 1).replace(`.${me.ns}.${me.pid}.`, '.1.1.')
    // The socket bound by the writer itself (not a link to its shared one), so it can be closed here.
    await Promise.all([rename(staged.file, join(dir, name)), unlink(`${staged.file}.live`)])
    const socket = listenLiveness(join(dir, `${name}.live`))!
    await writeFile(join(dir, name), 'in flight')
    expect(await reclaimStaging(dir)).toBe(0)
    socket.close()
    // Closing unlinks a bound socket's name: the file alone, with bytes, is young and stays.
    expect(await readdir(dir)).toEqual([name])
    expect(await reclaimStaging(dir)).toBe(0)
    await staged.handle.close()
    await releaseStagedFile(staged)
  })
})
