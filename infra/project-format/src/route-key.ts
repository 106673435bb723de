/**
 * The route a method and URI template stand for, as the mock server matches requests: parameter names do not matter
 * (`/a/{id}` and `/a/{name}` clash), letters match in either case (ASCII, as the matcher folds them), and a trailing
 * slash is optional. Two descriptors with one key would shadow each other, so loading refuses them.
 */
export const routeKey = (method: string, uriTemplate: string): string => {
  const path = uriTemplate.replace(/\{[^}]*\}/g, '{}').replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
  return `${method.toUpperCase()} ${path.length > 1 ? path.replace(/\/$/, '') : path}`;
};
