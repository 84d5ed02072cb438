import { createDiagnostic } from '../../diagnostics/create.js';
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { Entity } from '../../model/entity.js';
import { isRecord, own } from '../../model/guards.js';
import { checkPublishedUrl, describeUrlProblem, displayUrl } from '../../model/safe-url.js';
import { joinPointer } from '../../parse/locator.js';
import { findSecret, maskSecret } from './find-secret.js';

/** A string value somewhere under a root: its key path (shared while walking: copy it to keep it) and the mapping or list it sits in. */
interface Leaf {
  path: (string | number)[];
  key: string | undefined;
  value: string;
  /** The mapping the value sits in, for checks that depend on a sibling (an interface's binding). */
  parent: unknown;
}

/** Calls `visit` with every string under `value`, depth first, in key order; `path` grows and shrinks as it goes. */
function walkLeaves(value: unknown, path: (string | number)[], key: string | undefined, parent: unknown, visit: (leaf: Leaf) => void): void {
  if (typeof value === 'string') visit({ path, key, value, parent });
  else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      walkLeaves(value[i], path, key, value, visit);
      path.pop();
    }
  } else if (isRecord(value)) {
    for (const k of Object.keys(value)) {
      path.push(k);
      walkLeaves(value[k], path, k, value, visit);
      path.pop();
    }
  }
}

/** URLs a client or a person follows: `url` and `*_url` keys. A gRPC interface's endpoint need not be http(s). */
function urlStrictness(leaf: Leaf): 'strict' | 'loose' | undefined {
  if (leaf.key === 'uri') return 'loose';
  if (leaf.key !== 'url' && !leaf.key?.endsWith('_url')) return undefined;
  const binding = isRecord(leaf.parent) ? own(leaf.parent, 'protocol_binding') : undefined;
  return leaf.path.includes('interfaces') && typeof binding === 'string' && binding.toUpperCase() === 'GRPC' ? 'loose' : 'strict';
}

/** URL and credential findings for every string under `root` of an entity's data. */
export function checkPublishedValues(entity: Entity, root: readonly string[], value: unknown): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const file = entity.source.path;
  // The pointer is made only for a finding: most values have none.
  const site = (leaf: Leaf) => {
    const pointer = joinPointer(leaf.path);
    return { file, pointer, range: entity.locator.rangeOf(pointer) };
  };
  walkLeaves(value, [...root], undefined, undefined, (leaf) => {
    const strictness = urlStrictness(leaf);
    const problem = strictness ? checkPublishedUrl(leaf.value, strictness === 'strict') : undefined;
    if (problem?.kind === 'credentials') {
      diagnostics.push(createDiagnostic('KNO2081', { url: displayUrl(leaf.value) }, site(leaf)));
      return;
    }
    if (problem) {
      diagnostics.push(createDiagnostic('KNO2080', { url: displayUrl(leaf.value), found: describeUrlProblem(problem) }, site(leaf)));
      return;
    }
    const secret = findSecret(leaf.value, leaf.key);
    if (secret) {
      diagnostics.push(createDiagnostic('KNO2082', { kind: secret.kind, masked: maskSecret(leaf.value.slice(secret.start, secret.end)) }, site(leaf)));
    }
  });
  return diagnostics;
}

/** Everything under `a2a_projection` is published: its URLs must be safe to follow and no value may be a credential. */
export function projectionIsPublishable(entity: Entity): Diagnostic[] {
  return checkPublishedValues(entity, ['a2a_projection'], own(entity.data, 'a2a_projection'));
}
