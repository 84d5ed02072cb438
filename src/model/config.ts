import type { Severity } from '../diagnostics/diagnostic.js';

/** Settings for the fleet card at /.well-known/agent-card.json. */
export interface FleetConfig {
  name?: string;
  description?: string;
  version?: string;
  provider?: { organization: string; url: string };
  documentation_url?: string;
  icon_url?: string;
}

/** One `acknowledged_breaks` entry: a breaking change `knoc diff` lets through, and why. */
export interface AcknowledgedBreak {
  agent: string;
  kind: string;
  skill?: string;
  interface?: string;
  reason: string;
}

/** knoc.config.yaml, after validation. */
export interface KnocConfig {
  base_url?: string;
  out?: string;
  /** Infer a service class from skill tags for blueprints that declare none. */
  infer_service_class?: boolean;
  fleet?: FleetConfig;
  /** Parse limits; the model's `limitsFrom` turns them into numbers with defaults. */
  limits?: { max_file_size?: number; max_depth?: number; max_aliases?: number; max_keys?: number };
  /** Per-code severity overrides; `off` drops the finding. */
  rules?: Record<string, Severity | 'off'>;
  /** Breaking changes `knoc diff` reports as acknowledged instead of failing on. */
  acknowledged_breaks?: AcknowledgedBreak[];
}
