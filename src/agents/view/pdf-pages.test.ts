import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { filesInView } from "./file-view.js";
import { countPdfPages } from "./pdf-pages.js";

/**
 * A valid PDF 1.5 of `pages` pages: catalog and page tree as plain objects, every page written
 * `/Type /P#61ge` (the name `/Page` with an escape) inside a Flate-compressed object stream,
 * and a cross-reference stream instead of a `trailer` (so no `trailer` keyword at all).
 */
function packedPdf(pages: number): Buffer {
  const first = 3;
  const numbers = Array.from({ length: pages }, (_, index) => first + index);
  const bodies = numbers.map(() => "<< /Type /P#61ge /Parent 2 0 R /MediaBox [0 0 612 792] >>");
  let offset = 0;
  const header: string[] = [];
  for (const [index, body] of bodies.entries()) {
    header.push(`${numbers[index]} ${offset}`);
    offset += body.length + 1;
  }
  const headerText = `${header.join(" ")}\n`;
  const packed = deflateSync(Buffer.from(headerText + bodies.join("\n"), "latin1"));
  const streamNumber = first + pages;
  const xrefNumber = streamNumber + 1;
  const kids = numbers.map((num) => `${num} 0 R`).join(" ");
  const parts: Buffer[] = [
    Buffer.from("%PDF-1.5\n%\xe2\xe3\xcf\xd3\n", "latin1"),
    Buffer.from("1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"),
    Buffer.from(`2 0 obj\n<< /Type /Pages /Kids [${kids}] /Count ${pages} >>\nendobj\n`),
    Buffer.from(
      `${streamNumber} 0 obj\n<< /Type /ObjStm /N ${pages} /First ${headerText.length} /Filter /FlateDecode /Length ${packed.length} >>\nstream\n`,
    ),
    packed,
    Buffer.from("\nendstream\nendobj\n"),
    Buffer.from(`${xrefNumber} 0 obj\n<< /Type /XRef /Size ${xrefNumber + 1} /Root 1 0 R /W [1 2 1] >>\nstream\n`),
    Buffer.from("\nendstream\nendobj\nstartxref\n0\n%%EOF\n"),
  ];
  return Buffer.concat(parts);
}

describe("countPdfPages", () => {
  it("counts a valid 300-page PDF whose pages are /P#61ge in an object stream as 300", () => {
    const pdf = packedPdf(300);
    expect(Buffer.from(pdf).toString("latin1")).not.toMatch(/\/Type\s*\/Page(?![A-Za-z])/);
    expect(countPdfPages(pdf)).toBe(300);
  });

  it("takes the leaves it finds when the tree's /Count claims fewer", () => {
    const pdf = Buffer.from(
      "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R 4 0 R] /Count 1 >> endobj\n3 0 obj << /Type /Page >> endobj\n4 0 obj << /Type /Pages /Kids [5 0 R 6 0 R] /Count 2 >> endobj\n5 0 obj << /Type /Page >> endobj\n6 0 obj << /Type /Page >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n",
    );
    expect(countPdfPages(pdf)).toBe(3);
  });

  it("is unknown without a readable page tree; such a PDF is not given as a document", () => {
    const loose = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Page >> endobj\n%%EOF\n");
    expect(countPdfPages(loose)).toBeUndefined();
    expect(countPdfPages(Buffer.from("not a pdf"))).toBeUndefined();
    const file = { name: "odd.pdf", mediaType: "application/pdf", size: loose.length, bytes: loose };
    const view = filesInView("m1", [file], true);
    expect(view.documents).toEqual([]);
    expect(view.lines[1]).toBe("[odd.pdf: a PDF whose pages could not be counted, not given as a document]");
  });

  /** A PDF whose page tree is plain (its one page, 3, is not there: the object stream is read for it) and whose object stream holds `inner` with `header`. */
  function withObjectStream(header: string, body: string, entries: number): Buffer {
    const packed = deflateSync(Buffer.from(header + body, "latin1"));
    return Buffer.concat([
      Buffer.from(
        "%PDF-1.5\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n",
      ),
      Buffer.from(
        `5 0 obj << /Type /ObjStm /N ${entries} /First ${header.length} /Filter /FlateDecode /Length ${packed.length} >>\nstream\n`,
      ),
      packed,
      Buffer.from("\nendstream\nendobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"),
    ]);
  }

  it("reads entries of an object stream at the same offset once (they were parsed again each: quadratic)", () => {
    const entries = 20;
    const header = `${Array.from({ length: entries }, (_, index) => `${10 + index} 0`).join(" ")}\n`;
    expect(countPdfPages(withObjectStream(header, `[${" 0".repeat(50_000)} ]`, entries))).toBe(1);
  });

  it("refuses a document whose parsing would be work without bound: nested arrays read from every level", () => {
    // 30 levels of 20,000 items, an entry at each level: each reads every level below it again.
    const levels = 30;
    const level = `[${" 0".repeat(20_000)} `;
    const header = `${Array.from({ length: levels }, (_, index) => `${10 + index} ${index * level.length}`).join(" ")}\n`;
    const body = `${level.repeat(levels)}${"]".repeat(levels)}`;
    expect(countPdfPages(withObjectStream(header, body, levels))).toBeUndefined();
  });

  it("a cyclic /Kids is no page tree", () => {
    const cyclic = Buffer.from(
      "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [4 0 R] >> endobj\n4 0 obj << /Type /Pages /Kids [2 0 R 4 0 R] >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n",
    );
    expect(countPdfPages(cyclic)).toBeUndefined();
  });

  it("the 300-page PDF is budgeted as 300 pages in the view", () => {
    const pdf = packedPdf(300);
    const view = filesInView(
      "m1",
      [{ name: "big.pdf", mediaType: "application/pdf", size: pdf.length, bytes: pdf }],
      true,
    );
    expect(view.documents[0]?.pages).toBe(300);
  });
});
