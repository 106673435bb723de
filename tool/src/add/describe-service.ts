import { isJsonObject } from '@restbus/infra';
import { readYamlFile } from '@restbus/project-format';

/**
 * An existing service as a message names it, from its service.yml: `the COLLECTION service "Orders service" at
 * /orders, in services/orders/service.yml`, so that a refusal says which service is in the way. A descriptor that does
 * not read is named by its file only: `rest-tool validate` reports what is wrong with it.
 */
export async function describeService(file: string, show: (path: string) => string): Promise<string> {
  const read = await readYamlFile(file, show(file));
  if (!read.ok) return `its service.yml, ${show(file)}, cannot be read`;
  const { value } = read.file;
  const text = (key: string): string | undefined => {
    const field = isJsonObject(value) ? value[key] : undefined;
    return typeof field === 'string' ? field : undefined;
  };
  const style = text('style');
  const name = text('name');
  const uriTemplate = text('uriTemplate') ?? text('urlPattern');
  return (
    `the ${style ? `${style} ` : ''}service${name ? ` ${JSON.stringify(name)}` : ''}` +
    `${uriTemplate ? ` at ${uriTemplate}` : ''}, in ${show(file)}`
  );
}
