import type { Paint } from './render/code-frame.js';
import { choosePaint } from './paint.js';
import { dedupeReports, writeReportFile } from './written-paths.js';
import { UsageError } from './command.js';
import type { Report } from './render/report.js';
import type { SourceLookup } from './render/stylish.js';

/** The report formats `--format` accepts. */
export const FORMATS = ['stylish', 'json', 'sarif', 'github', 'junit'] as const;
export type FormatName = (typeof FORMATS)[number];

/** One `--format name[=path]`: where a report goes; no path means the terminal. */
export interface FormatSpec {
  name: FormatName;
  path?: string;
}

/** Parses `--format` values; throws a message for an unknown name. */
export function parseFormatSpecs(values: readonly string[] | undefined): FormatSpec[] {
  if (values === undefined || values.length === 0) return [{ name: 'stylish' }];
  return values.map((value) => {
    const eq = value.indexOf('=');
    const name = eq < 0 ? value : value.slice(0, eq);
    const path = eq < 0 ? undefined : value.slice(eq + 1);
    if (!(FORMATS as readonly string[]).includes(name)) throw new Error(`unknown format \`${name}\`, expected one of ${FORMATS.join(', ')}`);
    if (path === '') throw new Error(`--format ${name}= needs a file path after \`=\``);
    return path === undefined ? { name: name as FormatName } : { name: name as FormatName, path };
  });
}

/**
 * The reports a run's `--format` values ask for, each once; an unknown format,
 * a format without its file after `=`, or more than one report for stdout is a
 * usage error.
 */
export function reportFormats(values: readonly string[] | undefined): FormatSpec[] {
  let formats: FormatSpec[];
  try {
    formats = dedupeReports(parseFormatSpecs(values));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (formats.filter((f) => f.path === undefined && f.name !== 'stylish').length > 1) throw new UsageError('only one report can go to stdout; send the others to files with --format NAME=FILE');
  return formats;
}

/**
 * Renders one format. Stylish shows code frames and uses colour when the paint
 * allows it. Only the renderer asked for is loaded, and none for an empty
 * stylish report: a build with nothing to say starts no faster than its
 * slowest import.
 */
export async function renderFormat(name: FormatName, report: Report, sources: SourceLookup, paint: Paint): Promise<string> {
  switch (name) {
    case 'stylish': {
      if (report.diagnostics.length === 0) return '';
      const body = (await import('./render/stylish.js')).renderStylish(report.diagnostics, sources, paint);
      return body === '' ? '' : `${body}\n\n`;
    }
    case 'json':
      return (await import('./render/json.js')).renderJson(report);
    case 'sarif':
      return (await import('./render/sarif.js')).renderSarif(report);
    case 'github':
      return (await import('./render/github.js')).renderGithub(report);
    case 'junit':
      return (await import('./render/junit.js')).renderJunit(report);
  }
}

/**
 * Prints and writes the reports of one run: stylish to stderr, any other
 * format to stdout, and each given a file to that file. When a file could not
 * be written, the findings still reach the terminal (as stylish, unless a
 * stylish report already went there). Returns what could not be written, in
 * words, for the caller to say after its summary before it exits 2.
 */
export async function emitReports(formats: readonly FormatSpec[], data: Report, sources: SourceLookup): Promise<string[]> {
  const unwritten: string[] = [];
  for (const format of formats) {
    if (format.path === undefined) {
      const stream = format.name === 'stylish' ? process.stderr : process.stdout;
      stream.write(await renderFormat(format.name, data, sources, choosePaint(stream, process.env)));
    } else {
      const failure = await writeReportFile({ name: format.name, path: format.path }, () => renderFormat(format.name, data, sources, choosePaint(undefined, {})));
      if (failure) unwritten.push(failure);
    }
  }
  if (unwritten.length > 0 && !formats.some((f) => f.name === 'stylish' && f.path === undefined)) {
    process.stderr.write(await renderFormat('stylish', data, sources, choosePaint(process.stderr, process.env)));
  }
  return unwritten;
}
