/** Characters a POSIX shell reads as themselves anywhere in a word. */
const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * `text` as one word a POSIX shell reads back unchanged, for commands the CLI
 * suggests: as it is when every character is safe, else in single quotes with
 * each `'` written `'\''`. A leading `-` gets `./` first, so `cd` does not
 * read it as an option.
 */
export function shellWord(text: string): string {
  const word = text.startsWith('-') ? `./${text}` : text;
  return SAFE.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
