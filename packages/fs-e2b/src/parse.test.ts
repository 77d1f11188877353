import { FsError } from '@deepseek-ai/dsh-fs'
import { describe, expect, it } from 'vitest'
import { parseIdentity, parseList, parseRead, parseStatLine } from './parse'

const FILE = '81a4 5 64768:1234:5:1700000000.123456789:1700000001.000000001'
const DIR = '41ed 4096 64768:99:4096:1700000000.000000000:1700000000.000000000'

describe('parsing script output', () => {
  it('reads a stat line into type, size and the version token', () => {
    expect(parseStatLine(FILE, 'f')).toEqual({ type: 'file', size: 5, version: '64768:1234:5:1700000000.123456789:1700000001.000000001' })
    expect(parseStatLine(DIR, 'd')).toEqual({ type: 'directory', version: '64768:99:4096:1700000000.000000000:1700000000.000000000' })
    expect(parseStatLine('11a4 0 1:2:0:3.000000000:4.000000000', 'p').type).toBe('other')
  })

  it('names what an other entry is from its file-type bits: FIFO, socket, character or block device', () => {
    const kind = (mode: string) => parseStatLine(`${mode} 0 1:2:0:3.000000000:4.000000000`, 'x').special
    expect([kind('11a4'), kind('c1ed'), kind('21b6'), kind('61b0'), kind('a1ff')]).toEqual(['fifo', 'socket', 'device', 'device', 'broken-symlink'])
    expect(parseStatLine(FILE, 'f')).not.toHaveProperty('special')
    expect(parseStatLine(DIR, 'd')).not.toHaveProperty('special')
  })

  it('rejects a malformed stat line with FS_IO_ERROR', () => {
    for (const line of ['', 'garbage', '81a4 5 1:2:3']) {
      const error = (() => { try { parseStatLine(line, 'x') } catch (e) { return e } })()
      expect(FsError.is(error, 'FS_IO_ERROR')).toBe(true)
    }
  })

  it('marks a read whose stat lines differ as inconsistent', () => {
    const bytes = Buffer.from('héllo').toString('base64')
    expect(parseRead(`${FILE}\n${bytes}\n${FILE}`, 'f')).toMatchObject({ consistent: true, bytes: new Uint8Array(Buffer.from('héllo')) })
    const later = FILE.replace('1700000001.000000001', '1700000002.000000000')
    expect(parseRead(`${FILE}\n${bytes}\n${later}`, 'f').consistent).toBe(false)
  })

  it('reads the identity records (paths with newlines included) and hands back what follows', () => {
    expect(parseIdentity(`/real/a\nb.txt\0/real\0${FILE}\n`, 'a')).toEqual({ identity: { key: '/real/a\nb.txt', parent: '/real' }, rest: `${FILE}\n` })
    for (const output of ['', '/only-one\0', 'relative\0/p\0']) {
      const error = (() => { try { parseIdentity(output, 'a') } catch (e) { return e } })()
      expect(FsError.is(error, 'FS_IO_ERROR')).toBe(true)
    }
  })

  it('reads listing records, names with spaces and newlines included, and pairs links with their real paths', () => {
    const output = ['N7', `E${FILE} ./a b.txt`, `E${DIR} ./sub`, `E${FILE} ./odd\nname`, `E${FILE} ./link`, 'Llink', '/real/target', ''].join('\0')
    const { entries, total } = parseList(output, 'd')
    expect(total).toBe(7)
    expect(entries.map((entry) => entry.name)).toEqual(['a b.txt', 'link', 'odd\nname', 'sub'])
    expect(entries.find((entry) => entry.name === 'link')!.real).toBe('/real/target')
    expect(entries.find((entry) => entry.name === 'sub')!.info.type).toBe('directory')
  })
})
