/** The detail of a repeat-guard block; `continueTurn` ends the turn when it sees one. */
export const repeatGuardDetail = "repeat guard: the same tool with the same arguments was already called";
