import { isStructural, lookupCode } from '../diagnostics/catalogue.js';
import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic, Range } from '../diagnostics/diagnostic.js';

/** One `# knoc-disable-next-line` comment. */
export interface InlineSuppression {
  file: string;
  /** 1-based line of the comment; it silences findings that start on the next line. */
  line: number;
  range: Range;
  codes: string[];
  used: Set<string>;
}

const DIRECTIVE = /^(\s*)#\s*knoc-disable-next-line\b(.*)$/;

/**
 * Finds `# knoc-disable-next-line KNO3004 KNO3008 -- reason` comments in one
 * file. A comment without codes or without a reason silences nothing and is
 * reported as KNO6001.
 */
export function parseInlineSuppressions(file: string, text: string): { suppressions: InlineSuppression[]; diagnostics: Diagnostic[] } {
  const suppressions: InlineSuppression[] = [];
  const diagnostics: Diagnostic[] = [];
  if (!text.includes('knoc-disable-next-line')) return { suppressions, diagnostics };
  let offset = 0;
  text.split('\n').forEach((rawLine, index) => {
    const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    const lineOffset = offset;
    offset += rawLine.length + 1;
    const match = DIRECTIVE.exec(line);
    if (!match) return;
    const column = match[1]!.length + 1;
    const range: Range = { start: { line: index + 1, column, offset: lineOffset + column - 1 }, end: { line: index + 1, column: line.length + 1, offset: lineOffset + line.length } };
    const [codePart = '', ...reasonParts] = match[2]!.split('--');
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
    else suppressions.push({ file, line: index + 1, range, codes, used: new Set() });
  });
  return { suppressions, diagnostics };
}
