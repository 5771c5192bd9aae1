/** Bad usage of a command (an option's value out of range): the command's help follows, exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}
