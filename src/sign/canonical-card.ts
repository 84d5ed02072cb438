import { canonicalJson } from '../model/digest.js';
import { isRecord } from '../model/guards.js';
import { CARD_MESSAGES, type ProtoField } from './proto-presence.js';

/**
 * Which reading of a card a signature covers.
 * - `spec`: A2A v1.0 §8.4.1: drop the `signatures` field and every field at its
 *   Protocol Buffer default unless it is REQUIRED or `optional`, then RFC 8785.
 * - `sdk`: what a2a-python and @a2a-js/sdk compute today: the same, minus fields
 *   A2A does not define, and then every empty string, list and object removed
 *   at any depth, REQUIRED or not, before RFC 8785.
 * Both give the same bytes for a card without empty values.
 */
export type CardReading = 'spec' | 'sdk';

/** The signing payload of a card: its canonical JSON text in the given reading, without `signatures`. */
export function canonicalCardPayload(card: unknown, reading: CardReading = 'spec'): string {
  const withoutDefaults = dropDefaults(card, 'AgentCard', reading === 'sdk');
  if (isRecord(withoutDefaults)) delete withoutDefaults.signatures;
  return canonicalJson(reading === 'sdk' ? (cleanEmpty(withoutDefaults) ?? {}) : withoutDefaults);
}

/**
 * JSON pointers of the empty values a card keeps under the spec reading that the
 * SDK reading removes: where the two readings, and so the verifiers, disagree.
 */
export function emptyValuesSdksDrop(card: unknown): string[] {
  const pointers: string[] = [];
  const walk = (value: unknown, pointer: string): boolean => {
    if (value === '' || value === null || value === undefined) return true;
    if (Array.isArray(value) || isRecord(value)) {
      const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
      const kept = entries.filter(([key, child]) => {
        const childPointer = `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
        const empty = walk(child, childPointer);
        if (empty) pointers.push(childPointer);
        return !empty;
      });
      return kept.length === 0;
    }
    return false;
  };
  const spec = dropDefaults(card, 'AgentCard', false);
  if (isRecord(spec)) delete spec.signatures;
  walk(spec, '');
  // Report the outermost empty value only: `/a/b` covers `/a/b/c`.
  return pointers.filter((p) => !pointers.some((q) => q !== p && p.startsWith(`${q}/`))).sort();
}

function dropDefaults(value: unknown, message: string, dropUnknown: boolean): unknown {
  const fields = CARD_MESSAGES[message];
  if (!fields || !isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const field = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (!field) {
      if (!dropUnknown) out[key] = child;
      continue;
    }
    // A JSON null is the field left unset.
    if (child === null || child === undefined) continue;
    if (field.presence === 'implicit' && isDefault(child)) continue;
    out[key] = field.presence === 'struct' || !field.of ? child : mapMessages(child, field, dropUnknown);
  }
  return out;
}

/** Applies a field's message type to a singular value, each item of a list, or each value of a map. */
function mapMessages(value: unknown, field: ProtoField, dropUnknown: boolean): unknown {
  const message = field.of!;
  if (Array.isArray(value)) return value.map((item) => dropDefaults(item, message, dropUnknown));
  if (field.map && isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, dropDefaults(v, message, dropUnknown)]));
  return dropDefaults(value, message, dropUnknown);
}

function isDefault(value: unknown): boolean {
  return value === '' || value === false || value === 0 || (Array.isArray(value) && value.length === 0) || (isRecord(value) && Object.keys(value).length === 0);
}

/** Removes empty strings, lists, objects and nulls at any depth, as the A2A SDKs' `clean_empty` does; `undefined` when nothing is left. */
function cleanEmpty(value: unknown): unknown {
  if (value === '' || value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    const kept = value.map(cleanEmpty).filter((v) => v !== undefined);
    return kept.length > 0 ? kept : undefined;
  }
  if (isRecord(value)) {
    const kept = Object.entries(value)
      .map(([k, v]) => [k, cleanEmpty(v)] as const)
      .filter(([, v]) => v !== undefined);
    return kept.length > 0 ? Object.fromEntries(kept) : undefined;
  }
  return value;
}
