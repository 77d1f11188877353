export { inspectPath, mutationTarget, resolveTarget } from '@deepseek-ai/dsh-tool-text'
