import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { repositoryRoot } from "./run-roundtable.js";

// The README is a door and the reference lives in docs/ (#45): every relative link between
// them, and from them to the repository's files, must lead somewhere, down to the heading.

interface Page {
  name: string;
  text: string;
}

let pages: Page[] = [];
beforeAll(async () => {
  const docs = (await readdir(path.join(repositoryRoot, "docs"))).filter((name) => name.endsWith(".md")).sort();
  pages = await Promise.all(
    ["README.md", ...docs.map((name) => `docs/${name}`)].map(async (name) => ({
      name,
      text: await readFile(path.join(repositoryRoot, name), "utf8"),
    })),
  );
});

/** The text outside fenced code blocks (links and headings inside them are examples). */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, "");
}

/** GitHub's anchors of a Markdown page: its headings' slugs (numbered when repeated) and `<a id>`s. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading = ""] of prose(text).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = heading
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}_\- ]/gu, "")
      .replaceAll(" ", "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  for (const [, id = ""] of text.matchAll(/<a id="([^"]+)"><\/a>/g)) anchors.add(id);
  return anchors;
}

/** Every relative Markdown link of a page: its target as written and its line. */
function relativeLinks(text: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  const body = prose(text);
  for (const match of body.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = match[1] ?? "";
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
    links.push({ target, line: body.slice(0, match.index).split("\n").length });
  }
  return links;
}

describe("links between the README and docs/ (#45)", () => {
  it("the README is a door: about 250 lines, linking to each page of the reference", () => {
    const readme = pages.find((page) => page.name === "README.md")?.text ?? "";
    expect(readme.split("\n").length).toBeLessThanOrEqual(300);
    for (const page of ["configuration", "security", "deploy", "operations", "chat", "cli"]) {
      expect(readme).toContain(`](docs/${page}.md)`);
    }
  });

  it("every relative link leads to a file, and every #anchor to a heading there", () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const { target, line } of relativeLinks(page.text)) {
        const [file = "", anchor] = target.split("#");
        const destination = file === "" ? page.name : path.normalize(path.join(path.dirname(page.name), file));
        const absolute = path.join(repositoryRoot, destination);
        if (!existsSync(absolute)) {
          broken.push(`${page.name}:${line}: ${target} (no ${destination})`);
          continue;
        }
        if (anchor === undefined || anchor === "") continue;
        const linked = pages.find((each) => each.name === destination);
        if (linked === undefined) {
          broken.push(`${page.name}:${line}: ${target} (an anchor into a file that is not Markdown docs)`);
        } else if (!anchorsOf(linked.text).has(anchor)) {
          broken.push(`${page.name}:${line}: ${target} (no heading #${anchor} in ${destination})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it("the link check sees a broken link and a missing heading", () => {
    expect(relativeLinks("see [x](docs/nope.md) and [y](#gone)\n```\n[z](ignored.md)\n```\n")).toEqual([
      { target: "docs/nope.md", line: 1 },
      { target: "#gone", line: 1 },
    ]);
    expect(anchorsOf("## `channels`\n## Tracing (OpenTelemetry)\n## Tracing (OpenTelemetry)\n")).toEqual(
      new Set(["channels", "tracing-opentelemetry", "tracing-opentelemetry-1"]),
    );
  });
});
