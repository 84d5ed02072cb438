import { existsSync } from 'node:fs';
import path from 'node:path';
import { createDiagnostic } from '../diagnostics/create.js';
import { discover, readRepositoryFile, type Discovery } from '../discover/discover.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { DEFAULT_LIMITS, limitsFrom, type ParseLimits } from '../model/limits.js';
import type { SourceFile } from '../model/source-file.js';
import { parseFile } from '../parse/parse-file.js';
import { CONFIG_FILE, MISNAMED_CONFIG_FILES } from './config-names.js';

/** knoc.config.yaml as read, or why it could not be: a missing file is no config and no finding. */
export interface ConfigRead {
  source?: SourceFile;
  diagnostics: Diagnostic[];
}

/**
 * Reads knoc.config.yaml by the rules every source follows, always within the
 * default limits (the config cannot raise its own): a symbolic link, a folder,
 * a pipe or a device is reported (KNO1005) and not read; so is a file past the
 * size limit (KNO1011) or one that is not UTF-8 (KNO1015).
 */
export function readConfigFile(root: string): ConfigRead {
  const read = readRepositoryFile(CONFIG_FILE, path.join(root, CONFIG_FILE));
  if ('missing' in read) return { diagnostics: misnamedConfig(root) };
  return 'source' in read ? { source: read.source, diagnostics: [] } : { diagnostics: [read.diagnostic] };
}

function misnamedConfig(root: string): Diagnostic[] {
  const found = MISNAMED_CONFIG_FILES.find((name) => existsSync(path.join(root, name)));
  if (found === undefined) return [];
  return [createDiagnostic('KNO2040', { detail: `knoc reads its settings from ${CONFIG_FILE}, and there is none; \`${found}\` is not read` }, { file: found, hint: `Rename \`${found}\` to ${CONFIG_FILE} (in YAML).` })];
}

/** The parse limits a config file sets; its own problems are reported when it is compiled. */
export function configuredLimits(config: SourceFile | undefined): ParseLimits {
  if (!config) return DEFAULT_LIMITS;
  return limitsFrom(parseFile(config).entity?.data);
}

/**
 * Discovers a repository's sources under the limits its knoc.config.yaml sets,
 * as a build does: every command that reads the sources (queries, import,
 * scaffolding, diff) sees the same files, the same findings and the same
 * symbolic-link rules as `knoc build`. A config that cannot be read is one more
 * finding in the discovery.
 */
export async function discoverRepository(root: string): Promise<Discovery & { config?: SourceFile }> {
  const { source, diagnostics } = readConfigFile(root);
  const discovery = await discover(root, configuredLimits(source));
  return { ...discovery, diagnostics: [...diagnostics, ...discovery.diagnostics], ...(source ? { config: source } : {}) };
}
