import { createDiagnostic } from '../../diagnostics/create.js';
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { Entity } from '../../model/entity.js';
import { FLEET_URI, PROVENANCE_URI, SERVICE_CLASS_URI, SETTLEMENT_URI, extensionIdentity } from '../../model/extension-uris.js';
import { arrayOr, dig, isRecord } from '../../model/guards.js';
import { joinPointer } from '../../parse/locator.js';

/** What the message says each extension knoc writes is, and how to get it onto the card instead. */
const KNOC_WRITTEN = new Map<string, { owner: string; hint: string }>([
  [
    extensionIdentity(SERVICE_CLASS_URI),
    {
      owner: 'the service-class extension, built from `persona.service_class`',
      hint: 'Remove this entry and set `persona.service_class` (utility, principal or ephemeral); knoc writes the service-class extension from it.',
    },
  ],
  [
    extensionIdentity(SETTLEMENT_URI),
    {
      owner: 'the settlement extension, built from `a2a_projection.settlement`',
      hint: 'Remove this entry and describe the settlement under `a2a_projection.settlement` (`exchange_url`, `account_id`, `pricing`); knoc writes the settlement extension from it.',
    },
  ],
  [
    extensionIdentity(PROVENANCE_URI),
    { owner: 'knoc’s provenance extension, written on every card', hint: 'Remove this entry; knoc writes the provenance extension itself, from the blueprint’s `id` and content digest.' },
  ],
  [extensionIdentity(FLEET_URI), { owner: 'knoc’s fleet extension, written on the fleet card', hint: 'Remove this entry; knoc writes the fleet extension on the fleet card only.' }],
]);

/**
 * `a2a_projection.extensions` declares only extensions knoc does not write, each
 * URI once: a client looks an extension up by URI and reads one match, so a
 * second entry would forge knoc's own data or contradict the first.
 */
export function declaredExtensionsUnambiguous(entity: Entity): Diagnostic[] {
  const file = entity.source.path;
  const diagnostics: Diagnostic[] = [];
  const firstSeen = new Map<string, { pointer: string; uri: string }>();
  arrayOr(dig(entity.data, 'a2a_projection', 'extensions')).forEach((item, index) => {
    const uri = isRecord(item) ? item.uri : undefined;
    if (typeof uri !== 'string') return;
    const pointer = joinPointer(['a2a_projection', 'extensions', index, 'uri']);
    const identity = extensionIdentity(uri);
    const written = KNOC_WRITTEN.get(identity);
    if (written) {
      diagnostics.push(createDiagnostic('KNO2024', { uri, owner: written.owner }, { file, pointer, range: entity.locator.rangeOf(pointer), hint: written.hint }));
      return;
    }
    const first = firstSeen.get(identity);
    if (first === undefined) {
      firstSeen.set(identity, { pointer, uri });
      return;
    }
    diagnostics.push(
      createDiagnostic('KNO2025', { uri }, {
        file,
        pointer,
        range: entity.locator.rangeOf(pointer),
        related: [{ file, range: entity.locator.rangeOf(first.pointer), message: `First declaration of \`${first.uri}\`.` }],
      }),
    );
  });
  return diagnostics;
}
