/** The same route for any parameter names: `/a/{id}` and `/a/{name}` clash, as the mock server matches them. */
export const routeKey = (method: string, uriTemplate: string): string =>
  `${method.toUpperCase()} ${uriTemplate.replace(/\{[^}]*\}/g, '{}')}`;
