export { startEnvdEmulator } from './server.js'
export type { EnvdEmulator, EnvdEmulatorOptions, RequestRecord } from './server.js'
export { SERVED_RPCS } from './routes.js'
export type { ServedRpc } from './routes.js'
