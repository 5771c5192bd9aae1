import type { ViewDocument, ViewImage } from "../../providers/model-provider.js";
import { formatSize, inboxPath } from "../../world/files/inbound-files.js";
import { imageMediaTypes, textMediaType } from "../../world/files/media-type-of.js";
import type { MessageFile } from "../../world/records.js";
import { countPdfPages } from "./pdf-pages.js";

/** Characters of one text file shown inline; the rest is cut, saying so (the file is in the workdir). */
export const inlineTextBudget = 8_000;

/** What a message's files add to its view: lines after its text, images and PDFs as the model's input. */
export interface FilesInView {
  lines: string[];
  images: ViewImage[];
  documents: ViewDocument[];
}

/**
 * Every file named as a line (name, type, size, `inbox/…` path), or why it was not taken; text
 * files inline below their line, cut to {@link inlineTextBudget} with the cut said; images as
 * image input and PDFs as document input when the agent takes image input (`vision`: the
 * providers read a PDF's pages as images too), else only their line.
 */
export function filesInView(messageId: string, files: readonly MessageFile[], vision: boolean): FilesInView {
  const lines: string[] = [];
  const images: ViewImage[] = [];
  const documents: ViewDocument[] = [];
  for (const file of files) {
    if (file.bytes === undefined) {
      lines.push(`[file ${file.name}, ${formatSize(file.size)}: not passed on (${file.refusal ?? "no bytes"})]`);
      continue;
    }
    const where = inboxPath(messageId, file.name);
    lines.push(`[file ${file.name}, ${file.mediaType}, ${formatSize(file.size)}, at ${where}]`);
    if (imageMediaTypes.has(file.mediaType) && vision) {
      images.push({ mediaType: file.mediaType, base64: Buffer.from(file.bytes).toString("base64") });
    } else if (file.mediaType === pdfMediaType && vision) {
      const pages = countPdfPages(file.bytes);
      // Pages it cannot count are pages the budget cannot see: such a PDF is not given as a document.
      if (pages === undefined)
        lines.push(`[${file.name}: a PDF whose pages could not be counted, not given as a document]`);
      else {
        const base64 = Buffer.from(file.bytes).toString("base64");
        documents.push({ name: file.name, mediaType: pdfMediaType, base64, pages });
      }
    } else if (file.mediaType === textMediaType) {
      const text = new TextDecoder().decode(file.bytes);
      if (text.length <= inlineTextBudget) lines.push(`--- ${file.name} ---\n${text}\n--- end of ${file.name} ---`);
      else
        lines.push(
          `--- ${file.name} (first ${inlineTextBudget} of ${text.length} characters; the whole file is at ${where}) ---\n${text.slice(0, inlineTextBudget)}\n--- cut ---`,
        );
    }
  }
  return { lines, images, documents };
}

/**
 * The images among a tool call's files (its files message, `<call id>:tool-files`) as image
 * input, under the same rules as a person's: stored within `files.maxBytes`, PNG, JPEG, GIF or
 * WebP by their bytes, and only for an agent that takes image input (`vision`). The files are
 * named to the model by the line after the tool's result already.
 */
export function toolImagesInView(files: readonly MessageFile[], vision: boolean): ViewImage[] {
  if (!vision) return [];
  return files.flatMap((file) =>
    file.bytes !== undefined && imageMediaTypes.has(file.mediaType)
      ? [{ mediaType: file.mediaType, base64: Buffer.from(file.bytes).toString("base64") }]
      : [],
  );
}

const pdfMediaType = "application/pdf";
