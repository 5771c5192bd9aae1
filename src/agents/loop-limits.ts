/** What the model reads as the result of a call the repeat guard blocked (the guard itself is `repeat-guard.ts`). */
export const repeatGuardDetail = "repeat guard: the same tool with the same arguments was already called";
