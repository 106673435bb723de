import { writeProject, type Files } from '@restbus/project-format/testing';

// A small project with a service of each style, Markdown (and HTML that must not run) in its texts, and odd
// characters in names, folders and file names. Tests write it into a real temp folder.

export const SERVER_CONFIG = `useEnvironment: development
environments:
  default:
    port: 3007
    restapiRoot: ..
    remoteServices: []
  development:
    documentRoot: ../webui
`;

export const PROJECT_CONFIG = `projectName: 'Shop & <Co> "API"'
apiVersion: v1.2.3
author: Ada
licence: MIT
serviceUrlPrefix: /rest
servicePort: 3007
baseUrl: http://localhost:3007/rest
servicesRoot: services
services:
  - /monitoring/isAlive
  - /orders
  - /orders/order
  - /odd names/ünï & <co>
loginCredentials:
  user: username
  pass: "p@ss:word"
`;

const IS_ALIVE = `name: Monitoring that server is alive
description: |
  Answers \`true\` while the server runs.
uriTemplate: /monitoring/isAlive
style: OPERATION
methods:
  GET:
    summary: Is server alive?
    notes: Responses true if server is working
    implementation: monitoring.isAlive
    request:
      headers:
        - field: Accept
          content: application/json
    responses:
      - name: OK
        statusCode: &ok 200
        reason: Successful execution
        headers:
          - field: Content-Type
            content: application/json
    testCases:
      - name: Get Monitoring Is Alive
        description: Check that the server is alive
        url: /monitoring/isAlive
        template: testGetMethod.mustache
        response:
          statusCode: *ok
          headers:
            - field: Content-Type
              content: application/json
`;

const ORDERS = `name: Orders
description: |
  # The orders

  Every order of the shop, **newest first**:

  - filter with \`?status=\`
  - see [the order](../orders/order/service.html)

  Not [a trap](javascript:alert(1)), nor ![another](javascript:alert(2)).

  <script>document.title = 'pwned'</script>
style: COLLECTION
uriTemplate: /orders
methods:
  GET:
    summary: List the *orders*
    request:
      parameters:
        - { name: status, kind: QUERY, type: string, required: false, summary: only orders in this status, default: open }
      headers:
        - { field: Accept, content: application/json }
    responses:
      - name: OK
        statusCode: 200
        reason: Successful execution
        headers:
          - { field: Content-Type, content: application/json }
        mockBody: getCollection-responseBody.json
    testCases:
      - name: Get Orders
        description: Get the list of orders
        url: /orders
        template: testGetMethod.mustache
        response:
          statusCode: 200
          headers:
            - { field: Content-Type, content: application/json }
  POST:
    summary: Create an order
    request:
      headers:
        - { field: Content-Type, content: application/json }
        - { field: X-Client, content: fixture }
      mockBody: postCollection-requestBody.json
    responses:
      - name: Created
        statusCode: 201
        reason: Created
        headers:
          - { field: Content-Type, content: application/json }
          - { field: Location, content: /rest/orders/1 }
        mockBody: postCollection-responseBody.json
        validationSchema: order-schema.json
      - name: Invalid
        statusCode: 400
        reason: The order is not valid
        description: The body says *why*.
    testCases:
      - name: Create one order
        description: Create a new order
        url: /orders
        template: testPostMethod
        request:
          headers:
            - { field: Content-Type, content: application/json }
            - { field: X-Client, content: fixture }
          mockBody: postCollection-requestBody.json
        response:
          statusCode: 201
          headers:
            - { field: Content-Type, content: application/json }
            - { field: Location, content: /rest/orders/1 }
`;

const ORDER = `name: Order
description: One order, by its id.
style: RESOURCE
uriTemplate: /orders/{id}
methods:
  GET:
    summary: Get one order
    details: |
      Answers *404* when there is no such order.
    request:
      parameters:
        - { name: id, kind: URL, type: integer, required: true, summary: the order's id, default: 42 }
      cookies:
        - { field: session, content: abc }
    responses:
      - name: OK
        statusCode: 200
        reason: Successful execution
        headers:
          - { field: Content-Type, content: application/json }
        cookies:
          - { field: seen, content: "yes" }
        mockBody: getResource-responseBody.json
    testCases:
      - name: Get Order
        description: Get order 42
        url: /orders/{id}
        template: testGetMethod.mustache
        response:
          statusCode: 200
          headers:
            - { field: Content-Type, content: application/json }
  PUT:
    summary: Update an order
    request:
      parameters:
        - { name: id, kind: QUERY, type: number, required: true, summary: the order, default: 1 }
      headers:
        - { field: Content-Type, content: application/json }
      mockBody: putResource-requestBody.json
    responses:
      - name: OK
        statusCode: 200
        reason: Successful execution
        headers:
          - { field: Content-Type, content: application/json }
        mockBody: putResource-responseBody.json
    testCases:
      - name: Update Order
        description: Update order 1
        url: /orders/{id}
        template: testPutMethod.mustache
        request:
          headers:
            - { field: Content-Type, content: application/json }
          mockBody: putResource-requestBody.json
        response:
          statusCode: 200
          headers:
            - { field: Content-Type, content: application/json }
  DELETE:
    summary: Delete an order
    responses:
      - name: No content
        statusCode: 204
        reason: Deleted
        mockBody: no-such-file.json
    testCases:
      - name: Delete Order
        description: Delete order 42
        url: /orders/{id}
        template: testDelMethod.mustache
        response:
          statusCode: 204
`;

const ODD = `name: Ünïcode "quotes" & <tags> 'apos' \`ticks\` {{mustache}}
description: "Line one\\n\\n</div><img src=x onerror=alert(1)> \\u2028 ends"
style: OPERATION
uriTemplate: /odd/{name}/run
methods:
  POST:
    summary: Run it "now" & </script>
    request:
      parameters:
        - { name: name, kind: URL, type: string, required: true, summary: a name, default: "a b/c?d" }
      headers:
        - { field: Content-Type, content: application/json }
      mockBody: "body #1 & more.json"
    responses:
      - name: OK
        statusCode: "200"
        reason: Done
        headers:
          - { field: Content-Type, content: application/json }
        mockBody: "body #1 & more.json"
    testCases:
      - name: "Run: it/now \\\\ <fast>? *yes* | \\"quoted\\" 'single' \${x} \`tick\`"
        description: "</script> \\" ' \\u2028 \\\\ \${process.exit(1)}"
        url: /odd/{name}/run
        template: testPostMethod.mustache
        request:
          headers:
            - { field: Content-Type, content: application/json }
          mockBody: "body #1 & more.json"
        response:
          statusCode: 200
          headers:
            - { field: Content-Type, content: application/json }
`;

export const FIXTURE_FILES: Record<string, string> = {
  'server/config.yml': SERVER_CONFIG,
  'config.yml': PROJECT_CONFIG,
  'server/monitoring.js': `exports.isAlive = (request, response) => {
  response.type('application/json').send('true\\n');
};
`,
  'services/monitoring/isAlive/service.yml': IS_ALIVE,
  'services/orders/service.yml': ORDERS,
  'services/orders/getCollection-responseBody.json': '[{"id":1,"status":"open"}]\n',
  'services/orders/postCollection-requestBody.json': '{"item":"book"}\n',
  'services/orders/postCollection-responseBody.json': '{"id":1,"item":"book"}\n',
  'services/orders/order-schema.json': '{"type":"object","required":["id"]}\n',
  'services/orders/order/service.yml': ORDER,
  'services/orders/order/getResource-responseBody.json': '{"id":42}\n',
  'services/orders/order/putResource-requestBody.json': '{"id":1,"item":"pen"}\n',
  'services/orders/order/putResource-responseBody.json': '{"id":1,"item":"pen"}\n',
  'services/odd names/ünï & <co>/service.yml': ODD,
  'services/odd names/ünï & <co>/body #1 & more.json': '{"ok":"yes & <no>"}\n',
};

/** Writes the files into `dir`; the one project writer of the tests (@restbus/project-format/testing). */
export const writeFiles = (dir: string, files: Files): Promise<string> => writeProject(files, dir);
