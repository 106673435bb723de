// swagger2openapi ships no types; what the generator calls of it.
declare module 'swagger2openapi' {
  export function convertObj(
    swagger: object,
    options: { patch?: boolean; warnOnly?: boolean },
  ): Promise<{ openapi: object }>;
}
