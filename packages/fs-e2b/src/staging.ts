import { randomBytes } from 'node:crypto'

/**
 * The one name E2B staging uses: `.dsh-stage.<32 lowercase hex>`, a directory beside the target
 * holding the one staged file. The format is fixed and its random part is 128 bits, so a name a
 * user chose (`.dsh-stage-notes`, `.dsh-stage.old`) never fits it: listings and searches hide, and
 * publications reclaim, only directories whose whole name matches (`STAGE_DIR_PATTERN` here,
 * `$STAGE_RE` in the scripts), never a name by its prefix.
 */
export const STAGE_DIR_PATTERN = /^\.dsh-stage\.[0-9a-f]{32}$/

export function newStageDirName(): string {
  return `.dsh-stage.${randomBytes(16).toString('hex')}`
}
