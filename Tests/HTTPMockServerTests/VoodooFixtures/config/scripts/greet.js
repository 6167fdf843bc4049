// A script file: the greeting reads a template with templateData and the shared cache.
function response(request, cache) {
  if (request.pathParameters.name === "nobody") {
    throw new Error("nobody to greet");
  }
  return Response.ok(Body.template("greeting", "text/plain", { name: request.pathParameters.name, visits: cache.visits || 0 }));
}
