/** The promise, or a rejection once `ms` have passed (the promise itself runs on). */
export function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`not done within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
