import { fileURLToPath } from 'node:url'

/** The repository root (bench/ lives directly under it). */
export const REPO = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '')
export const BENCH = `${REPO}/bench`
export const REPORT = `${REPO}/docs/benchmarks.md`
