import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CONFIG_FILE } from '../config/load-config.js';
import { createDiagnostic, type DiagnosticSite } from '../diagnostics/create.js';
import { compareDiagnostics, type Diagnostic } from '../diagnostics/diagnostic.js';
import { discover } from '../discover/discover.js';
import { writeOutputs, type WriteReport } from '../emit/write-outputs.js';
import { sha256Hex } from '../model/digest.js';
import type { SourceFile } from '../model/source-file.js';
import { createBaseline, formatBaseline } from '../suppress/baseline.js';
import { compile, type CompileResult } from './compile.js';
import { failsGate, type GateOptions } from './gate.js';

/** The baseline file's default name at the root. */
export const BASELINE_FILE = 'knoc-baseline.json';

/** Options for a build or a check. */
export interface BuildOptions extends GateOptions {
  /** The repository to compile; default: the current directory. */
  root?: string;
  /** Output folder, relative to root; default: `out` in config, else `dist`. */
  out?: string;
  /** Overrides `base_url` in knoc.config.yaml. */
  baseUrl?: string;
  /** Publish to the output folder when the gate passes; default true. `check` sets it false. */
  write?: boolean;
  /** Baseline of accepted findings, relative to root; default knoc-baseline.json when it exists. */
  baseline?: string;
  /** Record today's findings as the baseline instead of applying it. */
  updateBaseline?: boolean;
}

/** What a build found and did. */
export interface BuildResult extends CompileResult {
  root: string;
  outDir: string;
  /** Set when the outputs were published. */
  written?: WriteReport;
  /** True when the findings fail the gate: exit code 1, nothing written. */
  failed: boolean;
  /** Set when `updateBaseline` wrote the baseline file: its path relative to root. */
  baselineWritten?: string;
  errorCount: number;
  warningCount: number;
  durationMs: number;
}

/** Compiles a repository and, when nothing is an error, publishes the outputs atomically. */
export async function build(options: BuildOptions = {}): Promise<BuildResult> {
  const started = performance.now();
  const root = path.resolve(options.root ?? '.');
  const baselinePath = options.baseline ?? BASELINE_FILE;
  const [discovery, config, baselineRead] = await Promise.all([
    discover(root),
    readConfig(root),
    options.updateBaseline ? undefined : readText(path.resolve(root, baselinePath)),
  ]);
  const baselineText = typeof baselineRead === 'string' ? baselineRead : undefined;
  const missingBaseline =
    options.baseline !== undefined && !options.updateBaseline && typeof baselineRead !== 'string'
      ? [createDiagnostic('KNO6004', { detail: `it cannot be read (${baselineRead?.error ?? 'unknown'})` }, { file: baselinePath })]
      : [];
  const result = compile({
    discovery,
    ...(config ? { config } : {}),
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    ...(baselineText !== undefined ? { baseline: { text: baselineText, path: baselinePath } } : {}),
  });
  const outDir = path.resolve(root, options.out ?? result.config.out ?? 'dist');
  const outFromConfig = options.out === undefined && result.config.out !== undefined;
  const outSite = outFromConfig && result.configEntity ? { file: CONFIG_FILE, pointer: '/out', range: result.configEntity.locator.rangeOf('/out') } : {};
  const diagnostics = [...result.diagnostics, ...missingBaseline, ...checkOutDir(root, outDir, outSite)];

  let baselineWritten: string | undefined;
  if (options.updateBaseline) {
    try {
      await writeFile(path.resolve(root, baselinePath), formatBaseline(createBaseline(diagnostics)));
      baselineWritten = baselinePath;
    } catch (error) {
      diagnostics.push(createDiagnostic('KNO6004', { detail: error instanceof Error ? error.message : String(error) }, { file: baselinePath }));
    }
  }
  let written: WriteReport | undefined;
  if (options.write !== false && !failsGate(diagnostics, options)) {
    try {
      written = await writeOutputs(outDir, result.outputs);
    } catch (error) {
      const detail = error instanceof Error && 'code' in error ? `${String(error.code)} (${error.message})` : String(error);
      diagnostics.push(createDiagnostic('KNO5001', { detail }, { file: path.relative(root, outDir) || '.' }));
    }
  }
  diagnostics.sort(compareDiagnostics);
  return {
    ...result,
    diagnostics,
    root,
    outDir,
    ...(written ? { written } : {}),
    ...(baselineWritten ? { baselineWritten } : {}),
    failed: failsGate(diagnostics, options),
    errorCount: diagnostics.filter((d) => d.severity === 'error').length,
    warningCount: diagnostics.filter((d) => d.severity === 'warning').length,
    durationMs: performance.now() - started,
  };
}

/** Everything a build does except publishing. */
export function check(options: Omit<BuildOptions, 'write'> = {}): Promise<BuildResult> {
  return build({ ...options, write: false });
}

/** Reads a text file, or says why it could not. */
async function readText(file: string): Promise<string | { error: string }> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    return { error: error instanceof Error && 'code' in error ? String(error.code) : String(error) };
  }
}

async function readConfig(root: string): Promise<SourceFile | undefined> {
  const absolutePath = path.join(root, CONFIG_FILE);
  try {
    const bytes = await readFile(absolutePath);
    return { path: CONFIG_FILE, absolutePath, text: bytes.toString('utf8'), sha256: sha256Hex(bytes), origin: 'content' };
  } catch {
    return undefined;
  }
}

/** The output folder is replaced whole, so it must not hold the sources or the repository. */
function checkOutDir(root: string, outDir: string, site: DiagnosticSite): Diagnostic[] {
  const inside = (parent: string) => outDir === parent || outDir.startsWith(parent + path.sep);
  const out = path.relative(root, outDir) || '.';
  let reason: string | undefined;
  if (inside(path.join(root, 'content')) || inside(path.join(root, 'specs'))) reason = 'is inside the sources (content/ or specs/)';
  else if (root === outDir || root.startsWith(outDir + path.sep)) reason = 'holds the repository itself';
  return reason ? [createDiagnostic('KNO5002', { out, reason }, site)] : [];
}
