import type { BuildResult } from '../../src/pipeline/build.js';
import type { Paint } from '../../src/cli/render/code-frame.js';
import { renderStylish } from '../../src/cli/render/stylish.js';

const plain = (text: string) => text;

/** Paint with colour off, as on a non-TTY. */
export const noColour: Paint = { dim: plain, red: plain, yellow: plain, cyan: plain, bold: plain };

/** The stylish report of a result, without colour and without the timing summary: stable across runs. */
export function renderPlain(result: Pick<BuildResult, 'diagnostics' | 'sources'>): string {
  const body = renderStylish(result.diagnostics, (file) => result.sources.get(file), noColour);
  return body === '' ? '' : `${body}\n`;
}
