// The contract: the service, its vocabulary, its errors and its events. The shared algorithms a
// provider is built from are in `./kit`, the reference provider in `./memory`.
export * from './types'
export * from './discovery-types'
export {
  editIndexOf, FS_ERROR_CODES, FsEditStepError, type FsEncodingCandidate, FsError, type FsErrorCode, type FsErrorDetails, type FsErrorFact, type FsErrorOptions, fsError, type FsOccurrences,
  type FsUnencodable,
} from './errors'
export { FS_TEXT_ENCODINGS, type FsTextEncoding, isTextEncoding } from './encodings'
export type { FsTextDecoding } from './decoding'
export * from './service'
export * from './events'
