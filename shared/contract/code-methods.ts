// The methods whose shapes come from the sandbox kernel (code.validate, code.run) and from the
// workflow file format (workflows.*). Kept apart from methods.ts because they follow the
// kernel's protocol files (shared/protocol/run.ts, workflow.ts) rather than defining their own.

export const CODE_METHODS = {} as const;
