import { yamlModule } from './yaml-module.js';

/** One YAML comment: the offset of its `#`, and its text up to the end of the line. */
export interface YamlComment {
  offset: number;
  text: string;
}

/** Lexer tokens that mark a mode and stand for no text. */
const DOCUMENT = '\x02';
const FLOW_END = '\x18';
/** Comes before every scalar's text, which is then one token. */
const SCALAR = '\x1f';

/**
 * Every comment of a YAML text, as the `yaml` package reads it: a `#` inside
 * a block scalar, a quoted string (on one line or several) or a plain scalar
 * is content, not a comment. Only the lexer runs, which splits the text into
 * tokens and builds no nodes, and it never throws: a text the parser rejects
 * still has its comments found.
 */
export function findYamlComments(text: string): YamlComment[] {
  const comments: YamlComment[] = [];
  let offset = 0;
  let inScalar = false;
  for (const token of new (yamlModule().Lexer)().lex(text)) {
    if (inScalar) {
      inScalar = false;
    } else if (token === DOCUMENT || token === FLOW_END) {
      continue;
    } else if (token === SCALAR) {
      inScalar = true;
      continue;
    } else if (token.charCodeAt(0) === 0x23 /* # */) {
      comments.push({ offset, text: token.endsWith('\r') ? token.slice(0, -1) : token });
    }
    offset += token.length;
  }
  return comments;
}
