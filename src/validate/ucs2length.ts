/**
 * A string's length in code points, as JSON Schema counts `minLength` and
 * `maxLength`: a surrogate pair is one, a lone surrogate one. The function
 * ajv's generated code requires as `ajv/dist/runtime/ucs2length`; the
 * standalone validators are given this one instead, so an edit does not
 * resolve and load a package module for it (test/validator-cache.test.ts
 * compares the two).
 */
export function ucs2length(text: string): number {
  const length = text.length;
  let count = 0;
  for (let at = 0; at < length; count++) {
    const unit = text.charCodeAt(at++);
    if (unit >= 0xd800 && unit <= 0xdbff && at < length && (text.charCodeAt(at) & 0xfc00) === 0xdc00) at++;
  }
  return count;
}

/** The module name ajv's generated code requires it by. */
export const UCS2LENGTH_MODULE = 'ajv/dist/runtime/ucs2length';
