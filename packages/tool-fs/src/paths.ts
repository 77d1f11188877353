export { resolveTarget } from '@deepseek-ai/dsh-tool-text'
