export interface Size {
  width: number
  height: number
}

/**
 * `size` scaled by `scale` (at most 1), aspect kept, each side rounded down and at least 1 pixel.
 * Pure integer arithmetic on the inputs: the same image always gets the same size.
 */
export function scaled(size: Size, scale: number): Size {
  const factor = Math.min(1, scale)
  return { width: Math.max(1, Math.floor(size.width * factor)), height: Math.max(1, Math.floor(size.height * factor)) }
}

/** The largest size of `size`'s aspect with no side over `maxSide`. */
export function withinSide(size: Size, maxSide: number): Size {
  return scaled(size, maxSide / Math.max(size.width, size.height))
}

/**
 * The next, smaller size to try after an encoding of `bytes` came out over `maxBytes`: the byte
 * count of an encoded image follows its pixel count, so each side shrinks by the square root of
 * the excess, and by a further 10 % so that a few steps suffice.
 */
export function smallerFor(size: Size, bytes: number, maxBytes: number): Size {
  const next = scaled(size, Math.sqrt(maxBytes / bytes) * 0.9)
  // Always strictly smaller, so the search ends.
  if (next.width === size.width && next.height === size.height) return scaled(size, (Math.max(size.width, size.height) - 1) / Math.max(size.width, size.height))
  return next
}
