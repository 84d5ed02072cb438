import { LIMIT_RANGES } from '../model/limits.js';
import { BREAKING_KINDS } from '../diff/change.js';

/** JSON Schema (2020-12) of knoc.config.yaml; `title` and `description` feed diagnostics. */
export const configSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'knoc configuration',
  type: 'object',
  additionalProperties: false,
  properties: {
    base_url: {
      title: 'absolute URL',
      description: 'an absolute `https:` URL where the agents are served, without a query or fragment, such as `https://agents.example.org`',
      type: 'string',
      format: 'uri',
      pattern: '^https?://[^?#]+$',
    },
    out: { title: 'output folder', type: 'string', minLength: 1 },
    infer_service_class: {
      title: 'service-class inference',
      description: '`true` to infer the service class of blueprints that declare none from their skill tags (marked `inferred: true`)',
      type: 'boolean',
    },
    fleet: {
      type: 'object',
      additionalProperties: false,
      properties: {
        name: { type: 'string', minLength: 1 },
        description: { type: 'string', minLength: 1 },
        version: { title: 'semantic version', description: 'MAJOR.MINOR.PATCH', type: 'string', pattern: '^\\d+\\.\\d+\\.\\d+([-+].*)?$' },
        provider: {
          type: 'object',
          required: ['organization', 'url'],
          additionalProperties: false,
          properties: { organization: { type: 'string', minLength: 1 }, url: { type: 'string', format: 'uri', title: 'absolute URL' } },
        },
        documentation_url: { type: 'string', format: 'uri', title: 'absolute URL' },
        icon_url: { type: 'string', format: 'uri', title: 'absolute URL' },
      },
    },
    acknowledged_breaks: {
      title: 'acknowledged breaking changes',
      description: 'a list of `{agent, kind, skill?, interface?, reason}`: breaking changes `knoc diff` lets through',
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['agent', 'kind', 'reason'],
        properties: {
          agent: { title: 'agent slug', type: 'string', minLength: 1 },
          kind: { title: 'breaking change kind', enum: BREAKING_KINDS },
          skill: { title: 'skill id', type: 'string', minLength: 1 },
          interface: { title: 'interface URL', type: 'string', minLength: 1 },
          reason: { title: 'reason', description: 'why the break is intended, for the people who review it', type: 'string', minLength: 1, pattern: '\\S' },
        },
      },
    },
    limits: {
      title: 'parse limits',
      description: 'bounds on each input file: `max_file_size` (bytes), `max_depth`, `max_aliases` and `max_keys`',
      type: 'object',
      additionalProperties: false,
      properties: {
        max_file_size: { title: 'size in bytes', type: 'integer', ...LIMIT_RANGES.max_file_size },
        max_depth: { title: 'nesting depth', type: 'integer', ...LIMIT_RANGES.max_depth },
        max_aliases: { title: 'alias expansions', type: 'integer', ...LIMIT_RANGES.max_aliases },
        max_keys: { title: 'keys in one mapping', type: 'integer', ...LIMIT_RANGES.max_keys },
      },
    },
    rules: {
      title: 'rule severities',
      description: 'a map from diagnostic code to `error`, `warning`, `info` or `off`',
      type: 'object',
      propertyNames: { pattern: '^KNO\\d{4}$' },
      additionalProperties: { enum: ['error', 'warning', 'info', 'off'] },
    },
  },
} as const;
