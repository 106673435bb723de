import { posix } from 'node:path';
import { writeProject, type Files } from '@restbus/project-format/testing';

const STYLES = ['COLLECTION', 'RESOURCE', 'OPERATION'] as const;

const response = (status: number, mockBody?: string): string => `      - name: OK
        statusCode: ${status}
        reason: Successful execution
        headers:
          - { field: Content-Type, content: application/json }
${mockBody ? `        mockBody: ${mockBody}\n` : ''}`;

const testCase = (name: string, url: string, template: string, status: number): string => `      - name: ${name}
        description: ${name}, the *usual* way
        url: ${url}
        template: ${template}
        response:
          statusCode: ${status}
          headers:
            - { field: Content-Type, content: application/json }
`;

function describeService(index: number): { path: string; yaml: string; files: Record<string, string> } {
  const style = STYLES[index % STYLES.length];
  const path = `/area${Math.floor(index / 50)}/service${index}`;
  const head = `name: Service ${index}
description: |
  Service **${index}** of the benchmark, a ${style.toLowerCase()}.

  - it has a list
  - and \`code\`
style: ${style}
`;
  if (style === 'COLLECTION') {
    return {
      path,
      yaml: `${head}uriTemplate: /items${index}
methods:
  GET:
    summary: List the items
    request:
      parameters:
        - { name: limit, kind: QUERY, type: integer, required: false, summary: at most, default: 10 }
      headers:
        - { field: Accept, content: application/json }
    responses:
${response(200, 'getCollection-responseBody.json')}    testCases:
${testCase(`Get items ${index}`, `/items${index}`, 'testGetMethod.mustache', 200)}  POST:
    summary: Create an item
    request:
      mockBody: postCollection-requestBody.json
    responses:
${response(201, 'postCollection-responseBody.json')}    testCases:
${testCase(`Create item ${index}`, `/items${index}`, 'testPostMethod.mustache', 201)}`,
      files: {
        'getCollection-responseBody.json': '[{"id":1,"data":"some mock data"},{"id":2,"data":"some mock data"}]\n',
        'postCollection-requestBody.json': '{"data":"new"}\n',
        'postCollection-responseBody.json': '{"id":1,"data":"new"}\n',
      },
    };
  }
  if (style === 'RESOURCE') {
    return {
      path,
      yaml: `${head}uriTemplate: /items${index}/{id}
methods:
  GET:
    summary: Get one item
    request:
      parameters:
        - { name: id, kind: URL, type: integer, required: true, summary: the id, default: 1 }
    responses:
${response(200, 'getResource-responseBody.json')}    testCases:
${testCase(`Get item ${index}`, `/items${index}/{id}`, 'testGetMethod.mustache', 200)}  PUT:
    summary: Update an item
    request:
      mockBody: putResource-requestBody.json
    responses:
${response(200, 'putResource-responseBody.json')}    testCases:
${testCase(`Update item ${index}`, `/items${index}/{id}`, 'testPutMethod.mustache', 200)}  DELETE:
    summary: Delete an item
    responses:
${response(200, 'deleteResource-responseBody.json')}    testCases:
${testCase(`Delete item ${index}`, `/items${index}/{id}`, 'testDelMethod.mustache', 200)}`,
      files: {
        'getResource-responseBody.json': '{"id":1,"data":"Some mock data of the resource"}\n',
        'putResource-requestBody.json': '{"data":"changed"}\n',
        'putResource-responseBody.json': '{"id":1,"data":"changed"}\n',
        'deleteResource-responseBody.json': '{}\n',
      },
    };
  }
  return {
    path,
    yaml: `${head}uriTemplate: /run${index}
methods:
  POST:
    summary: Run the operation
    notes: Runs it *now*.
    request:
      mockBody: postOperation-requestBody.json
    responses:
${response(200, 'postOperation-responseBody.json')}    testCases:
${testCase(`Run operation ${index}`, `/run${index}`, 'testPostMethod.mustache', 200)}`,
    files: {
      'postOperation-requestBody.json': '{"filter":"all"}\n',
      'postOperation-responseBody.json': '[{"id":1,"data":"fits the filter"}]\n',
    },
  };
}

/** A valid project of `count` services, a third of each style, each with its mock files and test cases. */
export async function writeSampleProject(dir: string, count: number): Promise<void> {
  const services = Array.from({ length: count }, (_, index) => describeService(index));
  const files: Files = {
    'server/config.yml': 'environments:\n  default:\n    restapiRoot: ..\n',
    'config.yml': `projectName: bench
apiVersion: v1.0.0
author: bench
licence: MIT
serviceUrlPrefix: /rest
servicePort: 3007
baseUrl: http://localhost:3007/rest
servicesRoot: services
services:
${services.map((service) => `  - ${service.path}\n`).join('')}`,
  };
  for (const service of services) {
    const folder = posix.join('services', service.path);
    files[posix.join(folder, 'service.yml')] = service.yaml;
    for (const [name, text] of Object.entries(service.files)) files[posix.join(folder, name)] = text;
  }
  await writeProject(files, dir);
}
