import { z } from 'zod'

/** The policy's options. Every default is the seed notes' rule: a version seen present may be replaced at it. */
export const Config = z.object({
  seenBeforeReplace: z.boolean().default(false)
    .describe('A whole-file replacement (`write`) of an existing file is allowed only when this session was shown every line of the version it replaces; otherwise it is refused with FS_NOT_SEEN, naming the lines seen.'),
}).strict().prefault({})

export type Config = z.output<typeof Config>
