import { isRecord, own } from './guards.js';

/** Bounds on what one input file may cost to read and parse; set under `limits:` in knoc.config.yaml. */
export interface ParseLimits {
  /** Largest file knoc reads, in bytes; checked with stat before reading. */
  maxFileBytes: number;
  /** Deepest nesting of mappings and lists in one document. */
  maxDepth: number;
  /** Alias expansions one document may make (the YAML "billion laughs" budget). */
  maxAliases: number;
  /** Keys one mapping may hold: a duplicate-key check costs the square of this. */
  maxKeys: number;
}

/** The limits when the config sets none: far above any real blueprint, far below what hurts a CI runner. */
export const DEFAULT_LIMITS: Readonly<ParseLimits> = Object.freeze({ maxFileBytes: 1024 * 1024, maxDepth: 64, maxAliases: 100, maxKeys: 1000 });

/** The bounds each configurable limit must lie within; the config schema uses the same numbers. */
export const LIMIT_RANGES = {
  max_file_size: { minimum: 1024, maximum: 64 * 1024 * 1024 },
  max_depth: { minimum: 8, maximum: 512 },
  max_aliases: { minimum: 0, maximum: 10000 },
  max_keys: { minimum: 16, maximum: 10000 },
} as const;

/**
 * The limits a parsed config asks for. A value that is missing or out of its
 * range keeps the default here; config validation reports it (KNO2040).
 */
export function limitsFrom(config: unknown): ParseLimits {
  const section = isRecord(config) ? own(config, 'limits') : undefined;
  if (!isRecord(section)) return { ...DEFAULT_LIMITS };
  const pick = (key: keyof typeof LIMIT_RANGES, fallback: number): number => {
    const value = own(section, key);
    const { minimum, maximum } = LIMIT_RANGES[key];
    return typeof value === 'number' && Number.isInteger(value) && value >= minimum && value <= maximum ? value : fallback;
  };
  return {
    maxFileBytes: pick('max_file_size', DEFAULT_LIMITS.maxFileBytes),
    maxDepth: pick('max_depth', DEFAULT_LIMITS.maxDepth),
    maxAliases: pick('max_aliases', DEFAULT_LIMITS.maxAliases),
    maxKeys: pick('max_keys', DEFAULT_LIMITS.maxKeys),
  };
}

/** True when two sets of limits are the same numbers. */
export function sameLimits(a: ParseLimits, b: ParseLimits): boolean {
  return a.maxFileBytes === b.maxFileBytes && a.maxDepth === b.maxDepth && a.maxAliases === b.maxAliases && a.maxKeys === b.maxKeys;
}
