import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { Entity } from '../../model/entity.js';

/** A check a JSON Schema cannot express, run on one schema-valid-enough entity. */
export type EntityRule = (entity: Entity) => Diagnostic[];
