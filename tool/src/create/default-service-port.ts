/** A new project's servicePort when `create` is given none: the specification's. */
export const DEFAULT_SERVICE_PORT = 3007;
