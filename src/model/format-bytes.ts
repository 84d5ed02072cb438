/** Bytes as the largest whole unit that reads well: `1.5 MiB`, `800 KiB`, `512 bytes`. */
export function formatBytes(size: number): string {
  if (size >= 1024 * 1024) return `${Number((size / (1024 * 1024)).toFixed(1))} MiB`;
  if (size >= 1024) return `${Number((size / 1024).toFixed(1))} KiB`;
  return `${size} bytes`;
}
