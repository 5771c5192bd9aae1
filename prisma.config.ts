// Prisma CLI settings: JS engines only, so nothing is downloaded from outside the npm registry.
// `PRISMA_SCHEMA=prisma/postgresql/schema.prisma` selects the PostgreSQL schema.
import { defineConfig } from "prisma/config";

const schema = process.env.PRISMA_SCHEMA ?? "prisma/sqlite/schema.prisma";

export default defineConfig({
  schema,
  experimental: { adapter: true },
  engine: "js",
  async adapter() {
    if (schema.includes("postgresql")) {
      const { PrismaPg } = await import("@prisma/adapter-pg");
      return new PrismaPg({
        connectionString: process.env.DATABASE_URL ?? "postgresql://localhost/roundtable",
        allowExitOnIdle: true,
      });
    }
    const { PrismaLibSQL } = await import("@prisma/adapter-libsql");
    return new PrismaLibSQL({ url: process.env.DATABASE_URL ?? "file:./data/roundtable.db" });
  },
});
