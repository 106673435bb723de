/** `--cors`'s comma-separated origins, as the HTTP answers and the socket.io bridge both take them. */
export const readCorsOrigins = (cors: string | undefined): string[] | undefined =>
  cors
    ?.split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
