/** The output folder as a summary names it: from the root (`dist/`), or in full when it lies outside the root. */
export function relativeOut(result: { root: string; outDir: string }): string {
  const relative = result.outDir.startsWith(result.root + '/') ? result.outDir.slice(result.root.length + 1) : result.outDir;
  return `${relative}/`;
}
