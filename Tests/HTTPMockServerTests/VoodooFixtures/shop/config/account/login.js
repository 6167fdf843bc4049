// POST /login with a form: remembers who signed in, answers a token in the body and a header.
function response(request, cache) {
  var user = request.formParameters.user;
  if (!user) {
    return Response.unauthorised(Body.json({ error: "no user" }));
  }
  cache.user = user;
  cache.token = "token-" + user;
  return Response.ok(Body.json({ token: cache.token }), { "X-Token": cache.token });
}
