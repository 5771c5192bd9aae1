/**
 * The one name among `candidates` that `name` is most likely a typo of (case-insensitive,
 * at most one edit for names up to four characters, two for longer ones; a swap of two
 * neighbouring letters is one edit), or undefined when none is close or two are equally close.
 */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  const key = name.toLowerCase();
  const allowed = key.length <= 4 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  let tied = false;
  for (const candidate of candidates) {
    const distance = editDistance(key, candidate.toLowerCase());
    if (distance > allowed || distance > bestDistance) continue;
    tied = distance === bestDistance;
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return tied ? undefined : best;
}

/** Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps. */
function editDistance(left: string, right: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= left.length; i += 1) {
    const row: number[] = [];
    for (let j = 0; j <= right.length; j += 1) {
      if (i === 0 || j === 0) {
        row.push(i + j);
        continue;
      }
      const cost = left[i - 1] === right[j - 1] ? 0 : 1;
      let value = Math.min(at(rows, i - 1, j) + 1, (row[j - 1] ?? 0) + 1, at(rows, i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && left[i - 1] === right[j - 2] && left[i - 2] === right[j - 1]) {
        value = Math.min(value, at(rows, i - 2, j - 2) + 1);
      }
      row.push(value);
    }
    rows.push(row);
  }
  return at(rows, left.length, right.length);
}

function at(rows: number[][], i: number, j: number): number {
  return rows[i]?.[j] ?? 0;
}
