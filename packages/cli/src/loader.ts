import { Loader } from '@cordisjs/plugin-loader'
import { BUILT_IN } from './builtins'

/**
 * The Cordis loader with three changes for a command-line host:
 * - it never writes the config file back (the stock loader does, dropping comments, whenever an
 *   entry changes, gets an id, or is disposed behind its back): the user's file is left alone;
 * - the plugins `dsh` is built with come from its own bundle (see `builtins.ts`);
 * - entries are applied in the order of the config. Imports still run in parallel, but one that
 *   finishes early waits for those listed before it, so the tool list and the system prompt do
 *   not depend on which chunk happened to load first.
 */
export class ReadOnlyLoader extends Loader {
  #previous: Promise<unknown> = Promise.resolve()

  override write(): void {}

  override import(name: string, getOuterStack?: () => string[], useInternal?: boolean): Promise<unknown> {
    const bundled = Object.hasOwn(BUILT_IN, name) ? BUILT_IN[name] : undefined
    const loading = bundled === undefined ? super.import(name, getOuterStack, useInternal) : bundled()
    const inOrder = this.#previous.then(() => loading)
    this.#previous = inOrder.catch(() => {})
    return inOrder
  }
}
