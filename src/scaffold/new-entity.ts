import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { monotonicFactory } from 'ulid';
import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { suggestClosest } from '../diagnostics/suggest.js';
import { collectionOfKind, AGENT_KIND, DOMAIN_KIND } from '../model/entity.js';
import { CONFIG_SCHEMA_FILE, DEFAULT_SCHEMA_DIR, schemaFileOf } from '../editor/editor-schemas.js';
import { findSchemaLinks, writeEditorSchemas, type SchemaWriteReport } from '../editor/write-schemas.js';
import { findFilesInTheWay, findLinks } from '../emit/find-links.js';
import { renderScaffold } from './scaffold-templates.js';
import { slugProblem, titleOf } from './slug.js';
import { surveyRepo, type RepoSurvey } from './survey-repo.js';
import { writeNewFile } from '../emit/write-new-file.js';
import { isRepository } from '../config/config-names.js';
import { enclosingRepositoryHint } from '../config/no-repository.js';

/** The entity kinds `knoc new` makes. */
export type NewKind = 'agent' | 'domain';

/** The schema versions new files are written against. */
export const SCAFFOLD_SCHEMA_VERSIONS = { agent: '0.2.0', domain: '0.1.0' } as const;

/** Options for one new agent blueprint or perception domain. */
export interface NewEntityOptions {
  kind: NewKind;
  /** A valid slug; check it with `slugProblem` first. */
  slug: string;
  /** The repository; default: the current directory. */
  root?: string;
  /** Domains a new agent perceives; each must exist. */
  domains?: readonly string[];
  /** Makes the ULID; default: a fresh one. */
  newId?: () => string;
  /** What is already there, when the caller has surveyed the repository. */
  survey?: RepoSurvey;
  /** Refresh the editor schemas afterwards (default true). */
  writeSchemas?: boolean;
}

/** What `knoc new` wrote or why it refused. */
export interface NewEntityResult {
  /** The new file, relative to the root, when one was written. */
  written?: string;
  diagnostics: Diagnostic[];
  /** File texts for code frames. */
  sources: ReadonlyMap<string, string>;
  schemas?: SchemaWriteReport;
}

const KIND_NAME = { agent: AGENT_KIND, domain: DOMAIN_KIND } as const;

/** The path a new entity of a kind gets, relative to the root. */
export function newEntityPath(kind: NewKind, slug: string): string {
  return `content/${collectionOfKind[KIND_NAME[kind]]}/${slug}.kno`;
}

/** The text of a new entity: a template with a fresh ULID that builds as it is. */
export function renderNewEntity(kind: NewKind, slug: string, id: string, options: { domains?: readonly string[]; schemaPath: string }): string {
  const title = titleOf(slug);
  const common = { slug, id, title, schemaPath: options.schemaPath, schemaVersion: SCAFFOLD_SCHEMA_VERSIONS[kind] };
  if (kind === 'domain') return renderScaffold('domain.kno', common);
  return renderScaffold('agent.kno', { ...common, domainList: (options.domains ?? []).join(', ') });
}

/** The schema reference a new file carries: relative to its own folder, so editors find it from anywhere. */
export function schemaPathFrom(file: string, schemaFile: string): string {
  return path.posix.relative(path.posix.dirname(file), `${DEFAULT_SCHEMA_DIR}/${schemaFile}`);
}

/**
 * Writes a new agent blueprint or perception domain with a fresh ULID, never
 * over an existing file and never with a slug another file already declares;
 * a new agent's domains must all exist, and never through a symbolic link
 * (KNO8006). Then refreshes the editor schemas, so a new domain is offered as
 * a completion at once.
 */
export async function newEntity(options: NewEntityOptions): Promise<NewEntityResult> {
  if (slugProblem(options.slug) !== undefined) throw new RangeError(`not a slug: ${options.slug}`);
  const root = path.resolve(options.root ?? '.');
  // A folder with neither a config nor content/ is not a repository: a file written there would not build.
  if (!isRepository(root)) {
    const hint = enclosingRepositoryHint(options.root ?? '.');
    return { diagnostics: [createDiagnostic('KNO8005', { path: options.root ?? '.' }, hint !== undefined ? { hint } : {})], sources: new Map() };
  }
  const survey = options.survey ?? (await surveyRepo(root));
  const file = newEntityPath(options.kind, options.slug);
  const diagnostics: Diagnostic[] = [];
  const kindName = KIND_NAME[options.kind];
  const taken = (options.kind === 'agent' ? survey.agents : survey.domains).get(options.slug);
  if (survey.files.has(file) || (await exists(path.join(root, file)))) diagnostics.push(createDiagnostic('KNO8001', { path: file }, { file }));
  else if (taken) {
    diagnostics.push(createDiagnostic('KNO8002', { kind: options.kind, slug: options.slug, other: taken.file }, { file: taken.file, pointer: '/slug', ...(taken.range ? { range: taken.range } : {}) }));
  }
  for (const domain of options.kind === 'agent' ? (options.domains ?? []) : []) {
    if (survey.domains.has(domain)) continue;
    const near = suggestClosest(domain, survey.domains.keys());
    diagnostics.push(createDiagnostic('KNO8003', { slug: domain }, near ? { hint: `Did you mean \`${near}\`? (\`knoc domains\` lists every domain.)` } : {}));
  }
  // A write through a link lands wherever it points: the new file's folders and the editor schemas must be the repository's own.
  const linked = [...(await findLinks(root, [file])), ...(options.writeSchemas === false ? [] : await findSchemaLinks(root, DEFAULT_SCHEMA_DIR, survey))];
  for (const link of linked) diagnostics.push(createDiagnostic('KNO8006', { path: link }, { file: link }));
  // A file where a folder must be made would fail the write, or stop the editor schemas after the new file is written.
  for (const blocking of await findFilesInTheWay(root, [file, ...(options.writeSchemas === false ? [] : [path.join(DEFAULT_SCHEMA_DIR, CONFIG_SCHEMA_FILE)])])) {
    diagnostics.push(createDiagnostic('KNO8001', { path: blocking }, { file: blocking, hint: `\`knoc new\` makes a folder \`${blocking}/\` there: move the file away first.` }));
  }
  if (diagnostics.length > 0) return { diagnostics, sources: survey.files };
  const newId = options.newId ?? monotonicFactory();
  const text = renderNewEntity(options.kind, options.slug, newId(), { ...(options.domains ? { domains: options.domains } : {}), schemaPath: schemaPathFrom(file, schemaFileOf(kindName)) });
  if (!(await writeNewFile(path.join(root, file), text))) return { diagnostics: [createDiagnostic('KNO8001', { path: file }, { file })], sources: survey.files };
  if (options.writeSchemas === false) return { written: file, diagnostics, sources: survey.files };
  if (options.kind === 'domain') survey.domains.set(options.slug, { file });
  else survey.agents.set(options.slug, { file });
  const schemas = await writeEditorSchemas(root, DEFAULT_SCHEMA_DIR, survey);
  return { written: file, diagnostics, sources: survey.files, schemas };
}

async function exists(file: string): Promise<boolean> {
  return lstat(file).then(
    () => true,
    () => false,
  );
}
