'use strict';
// Implementations of mock services. A method with `implementation: api.getUser` in its service.yml is answered by
// the function `getUser` exported here, called as getUser(request, response, serviceDescriptor) with express 5's
// request and response; it may be async. The mock server loads this module by default; another module of this
// folder is loaded when a descriptor names it (`implementation: orders.cancel` loads server/orders.js).
//
// For example:
//   exports.getUser = (request, response) => {
//     response.status(200).json({ id: request.params.id, name: 'Luke' });
//   };

// POST /rest/customers/{id}/notes: answers the note it was given, for the customer of the path.
exports.addNote = (request, response) => {
  response.status(201).json({ customer: request.params.id, note: request.body });
};
