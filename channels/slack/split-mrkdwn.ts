/**
 * Cuts `text` into pieces of at most `limit` characters, at paragraph boundaries where it can,
 * else at line boundaries, else (one very long line) at a space or anywhere. A piece that ends
 * inside a fenced code block closes the fence and the next piece opens it again.
 */
export function splitMrkdwn(text: string, limit: number): string[] {
  const fenceCost = 8; // "\n```" at the end and "```\n" at the start of the next piece
  const budget = Math.max(16, limit - fenceCost);
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > budget) {
    const cut = cutPoint(rest, budget);
    let piece = rest.slice(0, cut).trimEnd();
    rest = rest.slice(rest[cut] === " " ? cut + 1 : cut).replace(/^\n+/, "");
    if (countFences(piece) % 2 === 1) {
      piece += "\n```";
      rest = `\`\`\`\n${rest}`;
    }
    if (piece.trim() !== "") pieces.push(piece);
  }
  if (rest.trim() !== "") pieces.push(rest);
  return pieces;
}

function cutPoint(text: string, budget: number): number {
  const window = text.slice(0, budget + 1);
  const paragraph = window.lastIndexOf("\n\n");
  if (paragraph > budget / 2) return paragraph;
  const line = window.lastIndexOf("\n");
  if (line > budget / 4) return line;
  const space = window.lastIndexOf(" ");
  if (space > budget / 4) return space;
  // Never cut an escape like `&amp;` in two.
  const amp = window.lastIndexOf("&", budget);
  if (amp > budget - 6 && !window.slice(amp, budget).includes(";")) return amp;
  return budget;
}

function countFences(text: string): number {
  return text.split("\n").filter((line) => line.startsWith("```")).length;
}
