import { describe, expect, it } from 'vitest'
import { demo } from '../src/demo'

describe('dsh demo in process', () => {
  it('runs every scripted step as expected and returns 0', async () => {
    let transcript = ''
    const status = await demo((text) => { transcript += text })
    expect(transcript).not.toContain('!!')
    expect(status).toBe(0)
    expect(transcript).toContain('error FS_STALE_VERSION')
    expect(transcript).toContain('error FS_NOT_FOUND')
    expect(transcript).toContain('error FS_NOT_OBSERVED')
    expect(transcript).toContain('Every step behaved as scripted.')
  })
})
