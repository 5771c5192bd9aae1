/** Pieces kept before they are joined into one flat string. */
const joinEvery = 32;

/**
 * Text that grows a piece at a time, as a streamed answer does. `text += piece` makes V8 keep a
 * rope: a node for every piece, each pointing at its piece, all alive until the answer ends and
 * the rope is read. With hundreds of answers in flight that was about 25 KiB an answer that lived
 * through every young-generation collection (docs/performance.md, "Real model speeds"). Here the
 * pieces are joined into one flat string every {@link joinEvery}, so what a streaming answer
 * keeps is about its text.
 */
export class GrowingText {
  private readonly pieces: string[] = [""];

  append(piece: string): void {
    if (piece === "") return;
    this.pieces.push(piece);
    if (this.pieces.length > joinEvery) this.join();
  }

  get text(): string {
    if (this.pieces.length > 1) this.join();
    return this.pieces[0] ?? "";
  }

  get isEmpty(): boolean {
    return this.pieces.length === 1 && this.pieces[0] === "";
  }

  private join(): void {
    const joined = this.pieces.join("");
    this.pieces.length = 1;
    this.pieces[0] = joined;
  }
}
