import pc from 'picocolors';
import type { Paint } from './render/code-frame.js';

/** Colour only on a TTY, honouring NO_COLOR and FORCE_COLOR. */
export function choosePaint(stream: NodeJS.WriteStream | undefined, env: NodeJS.ProcessEnv): Paint {
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  // NO_COLOR counts only when it is set to something (no-color.org).
  const enabled = forced || ((env.NO_COLOR ?? '') === '' && stream?.isTTY === true && env.TERM !== 'dumb');
  const colors = pc.createColors(enabled);
  return { dim: colors.dim, red: colors.red, yellow: colors.yellow, cyan: colors.cyan, bold: colors.bold };
}
