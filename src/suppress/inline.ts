import { isStructural, lookupCode } from '../diagnostics/catalogue.js';
import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic, Range } from '../diagnostics/diagnostic.js';
import { findYamlComments } from '../parse/yaml-comments.js';

/** One `# knoc-disable-next-line` comment. */
export interface InlineSuppression {
  file: string;
  /** 1-based line of the comment; it silences findings that start on the next line. */
  line: number;
  range: Range;
  codes: string[];
  used: Set<string>;
}

/** A directive at the start of a comment; its codes and reason follow. */
const DIRECTIVE = /^#\s*knoc-disable-next-line\b(.*)$/;
/** Text that may hold one: only a file where it appears is read for comments. */
const CANDIDATE = /#\s*knoc-disable-next-line\b/;

/**
 * Finds `# knoc-disable-next-line KNO3004 KNO3008 -- reason` comments in one
 * file: on a line of their own or after a value. Only YAML comments count: the
 * same text inside a block scalar or a quoted string is content, and silences
 * nothing. A comment without codes or without a reason silences nothing and is
 * reported as KNO6001.
 */
export function parseInlineSuppressions(file: string, text: string): { suppressions: InlineSuppression[]; diagnostics: Diagnostic[] } {
  const suppressions: InlineSuppression[] = [];
  const diagnostics: Diagnostic[] = [];
  // Most files hold no directive: they are never lexed.
  if (!text.includes('knoc-disable-next-line') || !CANDIDATE.test(text)) return { suppressions, diagnostics };
  let line = 1;
  let lineStart = 0;
  for (const comment of findYamlComments(text)) {
    const match = DIRECTIVE.exec(comment.text);
    if (!match) continue;
    // Comments come in text order: count the lines up to this one.
    for (let nl = text.indexOf('\n', lineStart); nl !== -1 && nl < comment.offset; nl = text.indexOf('\n', lineStart)) {
      line++;
      lineStart = nl + 1;
    }
    const column = comment.offset - lineStart + 1;
    const end = comment.offset + comment.text.length;
    const range: Range = { start: { line, column, offset: comment.offset }, end: { line, column: end - lineStart + 1, offset: end } };
    const [codePart = '', ...reasonParts] = match[1]!.split('--');
    const codes = codePart.split(/[\s,]+/).filter(Boolean);
    const reason = reasonParts.join('--').trim();
    const badCode = codes.find((c) => lookupCode(c) === undefined);
    const fixedCode = codes.find(isStructural);
    const problem =
      codes.length === 0
        ? 'names no code'
        : badCode !== undefined
          ? `names \`${badCode}\`, which is not a knoc diagnostic code`
          : fixedCode !== undefined
            ? `names \`${fixedCode}\`, a parse, schema or duplicate-slug error, which cannot be suppressed`
            : reason === ''
              ? 'gives no reason'
              : undefined;
    if (problem !== undefined) diagnostics.push(createDiagnostic('KNO6001', { problem }, { file, range }));
    else suppressions.push({ file, line, range, codes, used: new Set() });
  }
  return { suppressions, diagnostics };
}
