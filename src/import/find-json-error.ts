/** Where JSON text first breaks the RFC 8259 grammar, and what was expected there. */
export interface JsonError {
  offset: number;
  message: string;
}

/**
 * Finds the first syntax error in JSON text, with the same wording on every
 * Node version (V8's messages change between releases and sometimes carry no
 * position). Returns undefined for valid JSON.
 */
export function findJsonError(text: string): JsonError | undefined {
  let i = 0;
  const fail = (message: string): never => {
    throw { offset: i, message } satisfies JsonError;
  };
  const found = () => (i >= text.length ? 'end of file' : `\`${text[i]}\``);
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const literal = (word: string) => {
    if (text.startsWith(word, i)) i += word.length;
    else fail(`unexpected ${found()}, expected a value`);
  };
  const string = () => {
    i++;
    for (;;) {
      if (i >= text.length) fail('unterminated string, expected a closing `"`');
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return;
      }
      if (c < 0x20) fail('unescaped control character in a string, expected `\\n`, `\\t` or another escape');
      if (c === 0x5c) {
        const next = text[i + 1];
        if (next === 'u') {
          if (!/^[0-9A-Fa-f]{4}$/.test(text.slice(i + 2, i + 6))) fail('bad `\\u` escape, expected four hex digits');
          i += 6;
        } else if (next !== undefined && '"\\/bfnrt'.includes(next)) i += 2;
        else fail('bad escape in a string');
      } else i++;
    }
  };
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!match || match[0] === '-' || match[0] === '') fail(`unexpected ${found()}, expected a value`);
    i += match![0].length;
  };
  const value = (): void => {
    space();
    const c = text[i];
    if (c === '{') return object();
    if (c === '[') return array();
    if (c === '"') return string();
    if (c === 't') return literal('true');
    if (c === 'f') return literal('false');
    if (c === 'n') return literal('null');
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return number();
    fail(`unexpected ${found()}, expected a value`);
  };
  const object = () => {
    i++;
    space();
    if (text[i] === '}') {
      i++;
      return;
    }
    for (;;) {
      space();
      if (text[i] !== '"') fail(`unexpected ${found()}, expected a property name in double quotes`);
      string();
      space();
      if (text[i] !== ':') fail(`unexpected ${found()}, expected \`:\` after a property name`);
      i++;
      value();
      space();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '}') {
        i++;
        return;
      }
      fail(`unexpected ${found()}, expected \`,\` or \`}\` after a property value`);
    }
  };
  const array = () => {
    i++;
    space();
    if (text[i] === ']') {
      i++;
      return;
    }
    for (;;) {
      value();
      space();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === ']') {
        i++;
        return;
      }
      fail(`unexpected ${found()}, expected \`,\` or \`]\` after a list item`);
    }
  };
  try {
    value();
    space();
    if (i < text.length) fail(`unexpected ${found()} after the JSON value, expected the end of the file`);
    return undefined;
  } catch (error) {
    if (typeof error === 'object' && error !== null && 'offset' in error) return error as JsonError;
    if (error instanceof RangeError) return { offset: i, message: 'the JSON nests too deeply to read' };
    throw error;
  }
}
