/**
 * Optimal string alignment distance: insertions, deletions, substitutions and
 * swaps of two neighbours each cost 1, so `titel` is one edit from `title`.
 * Stops early once every path exceeds `limit`.
 */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, beforePrevious[j - 2]! + 1);
      current.push(value);
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > limit) return limit + 1;
    beforePrevious = previous;
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The closest candidate to `word`: a case-insensitive match first, then the
 * smallest edit distance within a third of the word's length (at least 1, at most 3).
 * Ties go to the alphabetically first candidate so results are stable.
 */
export function suggestClosest(word: string, candidates: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  const sorted = [...new Set(candidates)].sort();
  const caseMatch = sorted.find((c) => c !== word && c.toLowerCase() === lower);
  if (caseMatch !== undefined) return caseMatch;
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of sorted) {
    if (candidate === word) continue;
    const distance = editDistance(lower, candidate.toLowerCase(), limit);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * The closest candidate to `word` as suggestClosest finds it, but only when no
 * other is as close: `rout` is one edit from both `out` and `root`, and a guess
 * between the two would be a coin toss.
 */
export function suggestOnly(word: string, candidates: Iterable<string>): string | undefined {
  const others = [...new Set(candidates)].filter((candidate) => candidate !== word);
  const best = suggestClosest(word, others);
  if (best === undefined) return undefined;
  const lower = word.toLowerCase();
  const distance = editDistance(lower, best.toLowerCase());
  return others.some((candidate) => candidate !== best && editDistance(lower, candidate.toLowerCase(), distance) <= distance) ? undefined : best;
}

/** Renders a list of allowed values as "`a`, `b` or `c`", shortened past `max`. */
export function formatChoices(values: readonly string[], max = 8): string {
  const shown = values.slice(0, max).map((v) => `\`${v}\``);
  if (values.length > max) return `${shown.join(', ')} or ${values.length - max} more`;
  if (shown.length <= 1) return shown.join('');
  return `${shown.slice(0, -1).join(', ')} or ${shown[shown.length - 1]}`;
}
