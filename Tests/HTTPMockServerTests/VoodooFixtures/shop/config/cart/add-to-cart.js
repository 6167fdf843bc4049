// POST /cart/items: one more item in the cart.
function response(request, cache) {
  cache.count = (cache.count || 0) + 1;
  return Response.created(Body.json({ count: cache.count }));
}
