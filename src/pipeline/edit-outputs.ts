import type { PlannedOutput } from '../emit/plan-outputs.js';
import { stringField, type Entity } from '../model/entity.js';
import type { DomainInfo } from '../render-pages/view-fleet.js';

/**
 * What the incremental build's planning shares: output paths as the full build
 * names them (compile.ts, render-pages.ts), kept here so the incremental build
 * loads neither the compiler nor the template engine (a build whose manifest
 * does not list them declines, so a rename can only cost speed), the domains
 * as the pages show them, and the shape of what an edit publishes.
 */
export const DOMAIN_INDEX_PATH = 'index/perception-domains.json';
export const AGENT_INDEX_PATH = 'index/agents.json';
export const SERVICE_CLASS_INDEX_PATH = 'index/service-classes.json';
export const FLEET_PAGE_PATH = 'index.html';
export const agentPagePathOf = (slug: string) => `agents/${slug}/index.html`;
export { TEMPLATES_DIR } from '../render-pages/templates-digest.js';

/** What an edit publishes: the changed outputs (manifest.json last), how many it made, and each changed agent's page. */
export interface EditOutputs {
  changed: PlannedOutput[];
  rebuilt: number;
  pages: Map<number, { sha256: string; size: number }>;
}

/** A domain as the pages show it (render-pages' domainInfo), from its record; undefined for one without a slug. */
export function domainInfoOf(data: Entity['data'], source: string): (DomainInfo & { source: string }) | undefined {
  const slug = stringField(data, 'slug');
  if (slug === undefined) return undefined;
  const title = stringField(data, 'title');
  return {
    slug,
    title: title && title.trim() !== '' ? title : slug,
    purpose: stringField(data, 'purpose') ?? '',
    category: stringField(data, 'category') ?? null,
    deprecated: data.deprecated === true,
    replacedBy: stringField(data, 'replaced_by') ?? null,
    source,
  };
}

/** An output planned from its whole text. */
export function planned(file: string, text: string, sha256: string, inputs: string[]): PlannedOutput {
  return {
    path: file,
    sha256,
    size: Buffer.byteLength(text, 'utf8'),
    inputs,
    get bytes(): Buffer {
      return Buffer.from(text, 'utf8');
    },
  };
}
