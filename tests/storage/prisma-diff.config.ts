// Prisma CLI settings for the schema-parity test's `migrate diff`: the project's settings, except
// that the PostgreSQL pool lets the CLI exit as soon as it is done (no 10 s idle wait).
import { fileURLToPath } from "node:url";
import { defineConfig } from "prisma/config";

// A relative schema path would be taken from this file's folder: make it absolute.
const schema = fileURLToPath(
  new URL(`../../${process.env.PRISMA_SCHEMA ?? "prisma/sqlite/schema.prisma"}`, import.meta.url),
);

export default defineConfig({
  schema,
  experimental: { adapter: true },
  engine: "js",
  async adapter() {
    if (schema.includes("postgresql")) {
      const { PrismaPg } = await import("@prisma/adapter-pg");
      return new PrismaPg({ connectionString: process.env.DATABASE_URL ?? "", allowExitOnIdle: true });
    }
    const { PrismaLibSQL } = await import("@prisma/adapter-libsql");
    return new PrismaLibSQL({ url: process.env.DATABASE_URL ?? "" });
  },
});
