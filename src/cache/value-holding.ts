/**
 * Which of `count` values stored one after another, the first starting at
 * `starts[0]` and each at its entry of the ascending `starts`, holds offset
 * `at`: the last whose start is at or before it (0 when none is).
 */
export function valueHolding(starts: Uint32Array, count: number, at: number): number {
  let low = 0;
  let high = count - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle]! <= at) low = middle;
    else high = middle - 1;
  }
  return low;
}
