import type { z } from "zod";
import type { ConfigPath } from "./config-path.js";

/** The few zod v4 definition fields we read to explain errors (the public `def` object). */
interface SchemaDefinition {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  innerType?: z.ZodType;
  in?: z.ZodType;
}

function definitionOf(schema: z.ZodType): SchemaDefinition {
  return schema._zod.def as unknown as SchemaDefinition;
}

/** Strips defaults, optionals and transforms down to the schema that checks the shape. */
function unwrapSchema(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let depth = 0; depth < 20; depth++) {
    const definition = definitionOf(current);
    const inner = definition.innerType ?? (definition.type === "pipe" ? definition.in : undefined);
    if (!inner) return current;
    current = inner;
  }
  return current;
}

/** The schema that validates the value at `path`, when it can be followed (not through unions). */
export function schemaAtPath(root: z.ZodType, path: ConfigPath): z.ZodType | undefined {
  let current: z.ZodType | undefined = unwrapSchema(root);
  for (const part of path) {
    if (!current) return undefined;
    const definition = definitionOf(current);
    let next: z.ZodType | undefined;
    if (definition.type === "object") next = definition.shape?.[String(part)];
    else if (definition.type === "array") next = definition.element;
    else if (definition.type === "record") next = definition.valueType;
    current = next ? unwrapSchema(next) : undefined;
  }
  return current;
}

/** The keys an object schema accepts, or `undefined` when the schema is not an object. */
export function objectKeys(schema: z.ZodType | undefined): string[] | undefined {
  if (!schema) return undefined;
  const definition = definitionOf(unwrapSchema(schema));
  return definition.type === "object" && definition.shape ? Object.keys(definition.shape) : undefined;
}

/** Required keys of an object schema (no default, not optional). */
export function requiredKeys(schema: z.ZodType): string[] {
  const definition = definitionOf(unwrapSchema(schema));
  if (definition.type !== "object" || !definition.shape) return [];
  return Object.entries(definition.shape)
    .filter(([, field]) => !field.safeParse(undefined).success)
    .map(([key]) => key);
}

/** The alternatives of a union schema. */
export function unionOptions(schema: z.ZodType | undefined): z.ZodType[] {
  if (!schema) return [];
  const definition = definitionOf(unwrapSchema(schema));
  return definition.type === "union" ? (definition.options ?? []) : [];
}
