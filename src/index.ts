export { build, check, type BuildOptions, type BuildResult } from './pipeline/build.js';
export { compile, type CompileInput, type CompileResult } from './pipeline/compile.js';
export { catalogue, lookupCode, type CatalogueEntry, type DiagnosticCode } from './diagnostics/catalogue.js';
export type { Diagnostic, Position, Range, RelatedLocation, Severity } from './diagnostics/diagnostic.js';
export type { AgentCard, AgentExtension, AgentInterface, AgentSkill } from './project/a2a-types.js';
export { getAgentsForDomain, getDomainsForAgent, type DomainIndex } from './project/project-domain-index.js';
export { loadDomainIndex } from './pipeline/load-index.js';
export { PROVENANCE_URI, FLEET_URI, SERVICE_CLASS_URI, SETTLEMENT_URI } from './project/extension-uris.js';
export { KNOC_VERSION } from './model/version.js';
