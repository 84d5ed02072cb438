import { spawn } from 'node:child_process';
import { AgainstError } from './against-error.js';

/** What a build reads, relative to the knoc root: all that is taken from the ref. */
const SOURCE_PATHS = ['content', 'specs', 'knoc.config.yaml', 'knoc-baseline.json'];

/** The commit a ref names, resolved in the git repository that holds `root`. */
export async function resolveCommit(root: string, ref: string): Promise<string> {
  const top = await git(root, ['rev-parse', '--show-toplevel']);
  if (top.status !== 0) throw new AgainstError(`--against \`${ref}\` is not a folder, and ${root} is not in a git repository to find it as a ref`);
  const commit = await git(root, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
  if (commit.status !== 0) throw new AgainstError(`--against \`${ref}\` is neither a folder nor a git ref of this repository (in CI, fetch it first: \`git fetch origin main\`)`);
  return commit.stdout.trim();
}

/**
 * Writes the sources at `commit` (content/, specs/, knoc.config.yaml and the
 * baseline, under the root's own path in the repository) into `into`, with
 * `git archive`: the repository, its index and its work tree are not touched.
 */
export async function extractSources(root: string, commit: string, into: string): Promise<void> {
  const listed = await git(root, ['ls-tree', '--name-only', commit, '--', ...SOURCE_PATHS]);
  if (listed.status !== 0) throw new Error(`git ls-tree failed: ${listed.stderr.trim()}`);
  const present = listed.stdout.split('\n').filter((p) => SOURCE_PATHS.includes(p));
  if (present.length === 0) return;
  await new Promise<void>((resolve, reject) => {
    const archive = spawn('git', ['archive', '--format=tar', commit, '--', ...present], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const tar = spawn('tar', ['-x', '-f', '-', '-C', into], { stdio: ['pipe', 'ignore', 'pipe'] });
    let errors = '';
    archive.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    tar.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    archive.stdout.pipe(tar.stdin);
    let pending = 2;
    const done = (name: string) => (code: number | null) => {
      if (code !== 0) reject(new Error(`${name} exited with ${code}: ${errors.trim()}`));
      else if (--pending === 0) resolve();
    };
    archive.on('error', reject).on('close', done('git archive'));
    tar.on('error', reject).on('close', done('tar'));
  });
}

/** Runs git in `cwd`; never throws for a non-zero exit. */
function git(cwd: string, args: readonly string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('git', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', (error) => resolve({ status: null, stdout, stderr: error.message }));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
