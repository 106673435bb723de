/** `--auth`: verify credentials for real, check only that they are there (Prism's mock), or check nothing. */
export const AUTH_MODES = ['verify', 'presence', 'off'] as const;
export type AuthMode = (typeof AUTH_MODES)[number];
