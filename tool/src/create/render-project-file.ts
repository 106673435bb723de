import { basename, extname } from 'node:path';
import {
  fillPlaceholders,
  renderYamlTemplate,
  stringifyYaml,
  type TemplateValues,
} from '../project/render-yaml-template';

const toJsonText = (value: string): string => JSON.stringify(value).slice(1, -1);
const mapValues = (values: TemplateValues, map: (value: string) => string): TemplateValues =>
  Object.fromEntries(Object.entries(values).map(([key, value]) => [key, map(value)]));

/**
 * A project template file filled with the project's values, each in the syntax of its file: YAML values through the
 * YAML writer, JSON-escaped text in JSON and JavaScript string literals, plain text in Markdown. Other files (and files
 * without placeholders) are copied byte for byte.
 */
export function renderProjectFile(path: string, content: Buffer, values: TemplateValues): Buffer {
  const text = content.toString('utf8');
  if (!/\{\{\s*\w+\s*\}\}/.test(text)) return content;
  const extension = extname(path);
  if (extension === '.yml' || extension === '.yaml') {
    return Buffer.from(stringifyYaml(renderYamlTemplate(text, values, path), path));
  }
  if (extension === '.md') return Buffer.from(fillPlaceholders(text, values));
  if (extension === '.json') return Buffer.from(fillPlaceholders(text, mapValues(values, toJsonText)));
  if (extension === '.js' || basename(path) === 'server') {
    // Inside a JavaScript string literal, quoted with ' or ": JSON's escapes plus an escaped '.
    return Buffer.from(
      fillPlaceholders(
        text,
        mapValues(values, (value) => toJsonText(value).replace(/'/g, "\\'")),
      ),
    );
  }
  return content;
}
