import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { formatChoices } from '../diagnostics/suggest.js';
import type { Entity } from '../model/entity.js';
import { AGENT_KIND, DOMAIN_KIND, SPEC_KIND, collectionOfKind } from '../model/entity.js';
import { mapAjvErrors } from './map-ajv-error.js';
import { rulesBySchema } from './rules/index.js';
import { suggestSchema } from './suggest-schema.js';
import type { SpecRegistry } from './spec-registry.js';

/** Validates one entity against the schema its `$schema` selects, then against the rules a schema cannot say. */
export function validateEntity(entity: Entity, registry: SpecRegistry): Diagnostic[] {
  const file = entity.source.path;
  const raw = entity.data.$schema;
  if (raw === undefined) {
    const example = exampleSchemaFor(entity.source.path, registry);
    return [createDiagnostic('KNO2001', { example }, { file, pointer: '', range: entity.locator.rangeOfMapping('') })];
  }
  const spec = entity.schema && registry.lookup(entity.schema.name, entity.schema.version);
  const unusable = (hint?: string) => {
    const { name, version } = entity.schema!;
    const site = { file, pointer: '/$schema', range: entity.locator.rangeOf('/$schema'), ...(hint !== undefined ? { hint } : {}) };
    // The spec's own finding says why it was refused: the hint names its code.
    const cause = registry.refusalOf(name, version) ?? 'KNO2030';
    return [createDiagnostic('KNO2031', { found: `${name}@${version}`, spec: registry.sourceOf(name, version) ?? 'specs/', cause }, site)];
  };
  if (spec === undefined && entity.schema && registry.has(entity.schema.name, entity.schema.version)) return unusable();
  if (spec === undefined) {
    const found = typeof raw === 'string' ? raw : JSON.stringify(raw);
    const suggestion = suggestSchema(found, registry);
    // The schema of specs themselves is never one of content's: such a file belongs in specs/.
    const hint =
      entity.schema?.name === SPEC_KIND && entity.source.origin === 'content'
        ? `\`${found}\` is the schema of spec entities, which knoc reads from specs/ at the repository root, not from content/: move the file there.`
        : suggestion
          ? `Did you mean \`${suggestion}\`?`
          : undefined;
    return [createDiagnostic('KNO2002', { found, known: formatChoices(registry.known()) }, { file, pointer: '/$schema', range: entity.locator.rangeOf('/$schema'), ...(hint !== undefined ? { hint } : {}) })];
  }
  const rootName = `the ${spec.name.replace(/-/g, ' ')}`;
  let valid: boolean;
  try {
    valid = spec.validate(entity.data) as boolean;
  } catch (error) {
    // A schema whose references loop without descending into the data is refused when it is loaded (schema-refs.ts); one
    // that loops anyway, as ajv runs it, overflows the stack here, and that is a finding about the schema, not a crash.
    if (!(error instanceof RangeError) || !/call stack/i.test(error.message)) throw error;
    return unusable(`Validating against it never ended: a reference in \`${registry.sourceOf(spec.name, spec.version) ?? 'specs/'}\` leads back to the same schema without descending into the data. Fix it there.`);
  }
  const diagnostics = valid ? [] : mapAjvErrors(spec.validate.errors ?? [], entity, { rootName });
  for (const rule of Object.hasOwn(rulesBySchema, spec.name) ? rulesBySchema[spec.name]! : []) diagnostics.push(...rule(entity));
  return diagnostics;
}

/** The newest known `name@version` for the kind a file's folder implies, for "add `$schema`" hints. */
function exampleSchemaFor(path: string, registry: SpecRegistry): string {
  const kind = path.includes(`/${collectionOfKind[DOMAIN_KIND]}/`) ? DOMAIN_KIND : AGENT_KIND;
  const versions = registry.versionsOf(kind);
  return `${kind}@${versions[versions.length - 1] ?? '0.0.0'}`;
}
