import { appendFile, lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { globby } from 'globby';
import { monotonicFactory } from 'ulid';
import { CONFIG_FILE } from '../config/load-config.js';
import { enclosingRepository } from '../config/config-names.js';
import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { CONFIG_SCHEMA_FILE, DEFAULT_SCHEMA_DIR } from '../editor/editor-schemas.js';
import { findSchemaLinks, writeEditorSchemas, type SchemaWriteReport } from '../editor/write-schemas.js';
import { KNOC_VERSION } from '../model/version.js';
import { newEntityPath, renderNewEntity, schemaPathFrom } from './new-entity.js';
import { schemaFileOf } from '../editor/editor-schemas.js';
import { renderScaffold } from './scaffold-templates.js';
import { slugify, titleOf } from './slug.js';
import { writeNewFile } from '../emit/write-new-file.js';
import { findFilesInTheWay, findLinks } from '../emit/find-links.js';
import { surveyRepo } from './survey-repo.js';

/** The example agent and domain a new repository starts with. */
export const INIT_EXAMPLE = { agent: 'feedback-summarizer', domain: 'customer-feedback' } as const;

/** The CI workflow `knoc init` writes. */
export const WORKFLOW_FILE = '.github/workflows/knoc.yml';

/** Lines a new repository's .gitignore needs. */
const IGNORED = ['dist/', 'node_modules/'];

/** Options for a new repository. */
export interface InitOptions {
  /** The folder; created when missing. */
  dir: string;
  /** Makes ULIDs; default: fresh ones. */
  newId?: () => string;
  /** How the user names the folder (`my-agents`, `.`): a message that names another folder gives its path from where the user is. Default: `.`. */
  shown?: string;
}

/** What `knoc init` did. */
export interface InitResult {
  /** Files created, relative to the folder. */
  written: string[];
  /** Existing files that got lines added (.gitignore), with the lines. */
  appended: { path: string; lines: string[] }[];
  /** Existing files left as they were (package.json). */
  kept: string[];
  /** Files init would merge into but left alone, and why (a .gitignore that is a folder). */
  skipped: { path: string; reason: string }[];
  diagnostics: Diagnostic[];
  schemas?: SchemaWriteReport;
}

/**
 * Starts a knoc repository in `dir`: knoc.config.yaml, one perception domain
 * and one agent that perceives it, a CI workflow running `knoc check`, a
 * .gitignore, a package.json that depends on knoc, and the editor schemas.
 * A folder that already has other files is fine; one that already holds
 * blueprints or a config, or any file init would create, is refused before
 * anything is written (KNO8004, KNO8001), and so is one where any of those
 * files, or a folder on the way to one, is a symbolic link (KNO8006). An
 * existing .gitignore gets the missing lines (one that is not a regular file
 * is left alone); an existing package.json is kept.
 */
export async function initRepo(options: InitOptions): Promise<InitResult> {
  const dir = path.resolve(options.dir);
  const newId = options.newId ?? monotonicFactory();
  const files = planInit(dir, newId);
  const diagnostics: Diagnostic[] = [];
  // A write through a link lands wherever it points: every file init writes, and every folder on the way, must be the folder's own.
  const linked = (await exists(dir)) ? [...(await findLinks(dir, files.map((file) => file.path))), ...(await findSchemaLinks(dir, DEFAULT_SCHEMA_DIR, await surveyRepo(dir)))] : [];
  const behindLink = (file: string) => linked.some((link) => file === link || file.startsWith(`${link}/`));
  for (const link of [...new Set(linked)].sort()) diagnostics.push(createDiagnostic('KNO8006', { path: link }, { file: link }));
  const existingKno = await globby('content/**/*.kno', { cwd: dir, onlyFiles: true, followSymbolicLinks: false }).catch(() => []);
  if (!behindLink(CONFIG_FILE) && (await exists(path.join(dir, CONFIG_FILE)))) diagnostics.push(createDiagnostic('KNO8004', { path: CONFIG_FILE, what: 'a knoc configuration' }, { file: CONFIG_FILE }));
  if (existingKno.length > 0) diagnostics.push(createDiagnostic('KNO8004', { path: 'content/', what: `${existingKno.length} .kno file${existingKno.length === 1 ? '' : 's'}` }, { file: 'content' }));
  // Inside another repository's content/, every file would become one of its sources, and a blueprint of the wrong kind or slug.
  const enclosing = enclosingRepository(dir);
  if (enclosing !== undefined) {
    const fromDir = path.relative(dir, enclosing).split(path.sep).join('/');
    const shown = path.posix.normalize(path.posix.join((options.shown ?? '.').split(path.sep).join('/'), fromDir));
    diagnostics.push(createDiagnostic('KNO8004', { path: shown, what: 'a knoc repository whose content/ this folder is in' }, { file: fromDir, hint: 'Run `knoc init` outside that repository’s content/ folder, or add agents and domains to it with `knoc new agent <slug>` and `knoc new domain <slug>`.' }));
  }
  // A file where a folder must be made would stop the writes halfway, the config already written.
  for (const blocking of await findFilesInTheWay(dir, [...files.map((file) => file.path), path.join(DEFAULT_SCHEMA_DIR, CONFIG_SCHEMA_FILE)])) {
    diagnostics.push(createDiagnostic('KNO8001', { path: blocking }, { file: blocking, hint: `\`knoc init\` makes a folder \`${blocking}/\` there: move the file away first.` }));
  }
  const refusedRepository = diagnostics.some((d) => d.code === 'KNO8004');
  for (const file of files) {
    if ((file.path === CONFIG_FILE && refusedRepository) || behindLink(file.path)) continue;
    if (file.mode === 'create' && (await exists(path.join(dir, file.path)))) diagnostics.push(createDiagnostic('KNO8001', { path: file.path }, { file: file.path }));
  }
  const result: InitResult = { written: [], appended: [], kept: [], skipped: [], diagnostics };
  if (diagnostics.length > 0) return result;

  for (const file of files) {
    const target = path.join(dir, file.path);
    if (file.mode === 'create') {
      if (await writeNewFile(target, file.text)) result.written.push(file.path);
      else diagnostics.push(createDiagnostic('KNO8001', { path: file.path }, { file: file.path }));
    } else if (file.mode === 'keep') {
      if (await writeNewFile(target, file.text)) result.written.push(file.path);
      else result.kept.push(file.path);
    } else {
      const info = await lstat(target).catch(() => undefined);
      if (info === undefined) {
        if (await writeNewFile(target, file.text)) result.written.push(file.path);
        continue;
      }
      // A folder, a pipe or a device in its place is not read (a pipe would never end), and not replaced.
      if (!info.isFile()) {
        result.skipped.push({ path: file.path, reason: info.isDirectory() ? 'it is a folder, not a file' : 'it is not a regular file' });
        continue;
      }
      const current = await readFile(target, 'utf8').catch(() => undefined);
      if (current === undefined) {
        result.skipped.push({ path: file.path, reason: 'it cannot be read' });
        continue;
      }
      const present = new Set(current.split(/\r?\n/).map((line) => line.trim()));
      const missing = IGNORED.filter((line) => !present.has(line) && !present.has(`/${line}`) && !present.has(line.replace(/\/$/, '')));
      if (missing.length === 0) {
        result.kept.push(file.path);
        continue;
      }
      await appendFile(target, `${current === '' || current.endsWith('\n') ? '' : '\n'}\n# knoc: build output and the content-addressed cache\n${missing.join('\n')}\n`);
      result.appended.push({ path: file.path, lines: missing });
    }
  }
  if (diagnostics.length === 0) result.schemas = await writeEditorSchemas(dir, DEFAULT_SCHEMA_DIR);
  return result;
}

/** One file of a new repository: created (refused when present), kept when present, or merged line by line. */
interface PlannedFile {
  path: string;
  text: string;
  mode: 'create' | 'keep' | 'merge-lines';
}

function planInit(dir: string, newId: () => string): PlannedFile[] {
  const base = slugify(path.basename(dir));
  const fleetName = base === undefined ? 'Agent fleet' : /(^|-)agents?$/.test(base) ? titleOf(base) : `${titleOf(base)} agents`;
  const domainFile = newEntityPath('domain', INIT_EXAMPLE.domain);
  const agentFile = newEntityPath('agent', INIT_EXAMPLE.agent);
  return [
    { path: CONFIG_FILE, mode: 'create', text: renderScaffold('knoc.config.yaml', { schemaPath: `${DEFAULT_SCHEMA_DIR}/${CONFIG_SCHEMA_FILE}`, fleetName, fleetDescription: 'Agent blueprints compiled into A2A agent cards by knoc.' }) },
    { path: domainFile, mode: 'create', text: renderNewEntity('domain', INIT_EXAMPLE.domain, newId(), { schemaPath: schemaPathFrom(domainFile, schemaFileOf('perception-domain')) }) },
    { path: agentFile, mode: 'create', text: renderNewEntity('agent', INIT_EXAMPLE.agent, newId(), { domains: [INIT_EXAMPLE.domain], schemaPath: schemaPathFrom(agentFile, schemaFileOf('agent-blueprint')) }) },
    { path: WORKFLOW_FILE, mode: 'create', text: renderScaffold('knoc.yml', {}) },
    { path: '.gitignore', mode: 'merge-lines', text: renderScaffold('gitignore', {}) },
    { path: 'package.json', mode: 'keep', text: renderScaffold('package.json', { packageName: base ?? 'agents', knocVersion: KNOC_VERSION }) },
  ];
}

async function exists(file: string): Promise<boolean> {
  return lstat(file).then(
    () => true,
    () => false,
  );
}
