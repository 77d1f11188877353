// The window and its numbering are shared with the editor family (dsh-tool-text).
export { buildWindow, cutCodePoints, linePrefix, skipLines, type ReadWindow, type WindowLine } from '@deepseek-ai/dsh-tool-text'
