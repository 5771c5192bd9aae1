#!/usr/bin/env node
// The `roundtable` command for installed use: runs the TypeScript CLI through tsx's loader.
import { register } from "tsx/esm/api";

register();
await import("../src/cli/main.ts");
