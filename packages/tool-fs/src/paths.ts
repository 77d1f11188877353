export { discoveryRoot, inspectPath, mutationTarget, resolveTarget } from '@deepseek-ai/dsh-tool-text'
