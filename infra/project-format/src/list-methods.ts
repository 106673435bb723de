import type { MethodDescriptor, MethodName, ServiceDocument } from './types';

/** A descriptor's methods in the order the file declares them (the schema admits only these four names). */
export const listMethods = (descriptor: ServiceDocument): Array<[MethodName, MethodDescriptor]> =>
  Object.entries(descriptor.methods).filter((entry): entry is [MethodName, MethodDescriptor] => entry[1] !== undefined);

/** The method an HTTP method names (any case), if the descriptor declares it. */
export const findMethod = (descriptor: ServiceDocument, method: string): MethodDescriptor | undefined =>
  listMethods(descriptor).find(([name]) => name === method.toUpperCase())?.[1];
