/** Bytes as the largest whole unit that reads well: `1.5 MiB`, `800 KiB`, `512 bytes`. */
export function formatBytes(size: number): string {
  if (size >= 1024 * 1024) return `${Number((size / (1024 * 1024)).toFixed(1))} MiB`;
  if (size >= 1024) return `${Number((size / 1024).toFixed(1))} KiB`;
  return `${size} bytes`;
}

/**
 * A size and the limit it passes, formatted to be compared: in bytes when
 * rounding would make them read the same (`1048577 bytes` over `1048576 bytes`,
 * never `1 MiB` over `1 MiB`).
 */
export function formatBytesOver(size: number, limit: number): { size: string; limit: string } {
  const rounded = { size: formatBytes(size), limit: formatBytes(limit) };
  return rounded.size === rounded.limit ? { size: `${size} bytes`, limit: `${limit} bytes` } : rounded;
}
