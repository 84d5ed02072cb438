import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { sha256Hex } from '../model/digest.js';

/**
 * A finding's identity that survives edits elsewhere in the file: code, file
 * and the JSON pointer of the node at fault (the message when there is none),
 * never a line number. Used by baselines and SARIF `partialFingerprints`.
 */
export function fingerprintOf(d: Diagnostic): string {
  return sha256Hex([d.code, d.file ?? '', d.pointer ?? d.message].join('\u0000')).slice(0, 32);
}
