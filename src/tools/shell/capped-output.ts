/**
 * Collects a stream's bytes up to a cap, keeping the beginning and the end and cutting the
 * middle; the cut is said in the text (`…[12345 bytes cut]…`), so a reader knows what is missing.
 */
export class CappedOutput {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private totalBytes = 0;

  constructor(maxBytes: number) {
    this.headLimit = Math.ceil(maxBytes / 2);
    this.tailLimit = Math.floor(maxBytes / 2);
  }

  /** Bytes seen so far, kept or not. */
  get total(): number {
    return this.totalBytes;
  }

  append(chunk: Buffer): void {
    this.totalBytes += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.headLimit) {
      const taken = rest.subarray(0, this.headLimit - this.headBytes);
      this.head.push(taken);
      this.headBytes += taken.length;
      rest = rest.subarray(taken.length);
    }
    if (rest.length === 0) return;
    this.tail.push(rest);
    this.tailBytes += rest.length;
    // Trim only when twice over, so a long stream costs linear time.
    if (this.tailBytes > 2 * this.tailLimit) this.trimTail();
  }

  text(): string {
    this.trimTail();
    const head = Buffer.concat(this.head).toString("utf8");
    const tail = Buffer.concat(this.tail).toString("utf8");
    const cut = this.totalBytes - this.headBytes - this.tailBytes;
    return cut > 0 ? `${head}\n…[${cut} bytes cut]…\n${tail}` : `${head}${tail}`;
  }

  private trimTail(): void {
    if (this.tailBytes <= this.tailLimit) return;
    const joined = Buffer.concat(this.tail);
    const kept = joined.subarray(joined.length - this.tailLimit);
    this.tail = [kept];
    this.tailBytes = kept.length;
  }
}
