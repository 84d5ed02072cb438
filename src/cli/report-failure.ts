/**
 * Says on standard error why a run stopped on an error that is not a usage
 * error: what the file system would not do (a folder that cannot be made, a
 * full disk), which is the machine's doing, or KNO9001 for a bug in knoc. The
 * stack trace follows only when KNOC_DEBUG is set. Never throws.
 */
export async function reportFailure(error: unknown): Promise<void> {
  const refused = fileSystemRefusal(error);
  // A bug, never the author's fault: say so, with what a report needs.
  const text = refused ?? `error KNO9001 ${await crashMessage(error instanceof Error ? error.message : String(error))}`;
  process.stderr.write(`knoc: ${text}\n`);
  if (process.env.KNOC_DEBUG && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
}

/**
 * The KNO9001 message and hint for a crash. The catalogue is loaded only here,
 * so every run that goes well skips it; if even that fails (a damaged
 * install), the detail is still reported.
 */
async function crashMessage(detail: string): Promise<string> {
  try {
    const [{ catalogue }, { formatTemplate }] = await Promise.all([import('../diagnostics/catalogue.js'), import('../diagnostics/create.js')]);
    const entry = catalogue.KNO9001;
    return `${formatTemplate(entry.message, { detail })}\n  hint: ${entry.hint}`;
  } catch {
    return `knoc failed unexpectedly: ${detail}.`;
  }
}

/** What the file system would not do, in words, for an error that names a path and a call; undefined for anything else. */
function fileSystemRefusal(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, syscall, path: file } = error as NodeJS.ErrnoException;
  if (typeof code !== 'string' || typeof syscall !== 'string' || typeof file !== 'string' || !/^E[A-Z]+$/.test(code)) return undefined;
  const verb = syscall === 'mkdir' ? 'make the folder' : syscall === 'write' || syscall === 'rename' ? 'write' : syscall === 'read' || syscall === 'scandir' ? 'read' : syscall;
  return `cannot ${verb} \`${file}\`: ${fileSystemReason(code, syscall) ?? code} (${code})`;
}

/** Why a file-system call failed, in words, for the error codes that have some. */
export function fileSystemReason(code: string, syscall: string): string | undefined {
  const reasons: Record<string, string> = {
    ENOENT: syscall === 'mkdir' ? 'its parent folder does not exist and cannot be made' : 'no such file or folder',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EROFS: 'the file system is read-only',
    ENOSPC: 'the disk is full',
    EDQUOT: 'the disk quota is used up',
    EISDIR: 'it is a folder, expected a file',
    ENOTDIR: 'a part of the path is a file, expected a folder',
    EEXIST: 'a file is already there',
    EIO: 'the device reported an input/output error',
    ELOOP: 'its symbolic links go round in a loop',
    ENAMETOOLONG: 'the path is too long',
  };
  return reasons[code];
}
