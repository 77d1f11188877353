import { Loader } from '@cordisjs/plugin-loader'

/**
 * The Cordis loader, minus one habit: it writes the config file back (dropping comments) whenever an
 * entry changes, gets an id, or is disposed behind its back. A command-line host must never touch
 * the user's file, so the tree's write-back is a no-op here.
 */
export class ReadOnlyLoader extends Loader {
  override write(): void {}
}
