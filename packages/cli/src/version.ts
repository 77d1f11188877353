import { createRequire } from 'node:module'

// src/ and lib/ both sit one level below the package root.
export const { version } = createRequire(import.meta.url)('../package.json') as { version: string }
