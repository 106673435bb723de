import { findMethod, type Project, type ServiceDescriptor } from '@restbus/project-format';
import type { MockFiles } from '../create-mock-files';
import { DEFAULT_RESPONSE } from '../prepare-responses';

/** What an implementation function gets as its third argument: the whole descriptor and its mock files. */
export function describeService(
  service: ServiceDescriptor,
  serviceDir: string,
  contentPath: string,
  mockFiles: MockFiles,
  config: Project['config'],
) {
  const readMockFile = async (file: string): Promise<unknown> => {
    const mock = await mockFiles.read(serviceDir, file);
    return mock.json ? JSON.parse(mock.body.toString('utf8')) : mock.body;
  };
  const described = { ...structuredClone(service.descriptor), path: service.path, contentPath };
  // Methods are not enumerable so that the descriptor still serialises to its plain content.
  Object.defineProperties(described, {
    // The project's config.yml (apiVersion, loginCredentials...), read-only.
    config: { value: Object.freeze(structuredClone(config)) },
    readMockFile: { value: readMockFile },
    readMockResponse: {
      value: (method: string, name = DEFAULT_RESPONSE) => {
        const responses = findMethod(service.descriptor, method)?.responses ?? [];
        const mockBody = responses.find((response) => response.name === name)?.mockBody;
        return typeof mockBody === 'string' && mockBody ? readMockFile(mockBody) : Promise.resolve(undefined);
      },
    },
  });
  return described;
}
